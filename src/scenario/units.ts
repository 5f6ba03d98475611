/** Parsing of quantities with units, as written in scenario files and on the command line. */

const DURATION_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1, min: 60 };
const RATE_UNITS: Record<string, number> = { bps: 1, kbps: 1e3, mbps: 1e6, gbps: 1e9 };
const FREQUENCY_UNITS: Record<string, number> = { hz: 1, khz: 1e3 };
const SIZE_UNITS: Record<string, number> = { b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 };
const POWER_UNITS: Record<string, number> = { dbm: 1 };
const DECIBEL_UNITS: Record<string, number> = { db: 1 };

export type ParseResult = { ok: true; value: number } | { ok: false; message: string };

function parseWithUnits(input: unknown, units: Record<string, number>, what: string, example: string): ParseResult {
  if (typeof input !== 'string' && typeof input !== 'number') {
    return { ok: false, message: `expected a ${what} such as "${example}"` };
  }
  const text = String(input).trim();
  const match = /^(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*([a-zA-Z]*)$/.exec(text);
  if (!match) return { ok: false, message: `"${text}" is not a ${what}; write it like "${example}"` };
  const unit = match[2].toLowerCase();
  if (!unit) return { ok: false, message: `"${text}" has no unit; write it like "${example}" (units: ${Object.keys(units).join(', ')})` };
  const factor = units[unit];
  if (factor === undefined) {
    return {
      ok: false,
      message: `unknown unit "${match[2]}" in "${text}"; use one of ${Object.keys(units).join(', ')} (e.g. "${example}")`,
    };
  }
  // Dividing by the whole number of sub-units per unit keeps 700ms exactly 0.7 s.
  const value = factor < 1 ? Number(match[1]) / Math.round(1 / factor) : Number(match[1]) * factor;
  return { ok: true, value };
}

/** Seconds. */
export const parseDuration = (input: unknown) => parseWithUnits(input, DURATION_UNITS, 'duration', '10ms');
/** Bits per second. */
export const parseDataRate = (input: unknown) => parseWithUnits(input, RATE_UNITS, 'data rate', '100Mbps');
/** Hertz. */
export const parseFrequency = (input: unknown) => parseWithUnits(input, FREQUENCY_UNITS, 'frequency', '100Hz');
/** Bytes; Docker-style memory sizes such as 256m. */
export const parseByteSize = (input: unknown) => parseWithUnits(input, SIZE_UNITS, 'size', '256m');

/** Bytes of a message payload, such as 300B: a whole number of bytes (a datagram has no half bytes). */
export function parsePayloadSize(input: unknown): ParseResult {
  const r = parseWithUnits(input, SIZE_UNITS, 'size', '300B');
  if (r.ok && !Number.isInteger(r.value))
    return { ok: false, message: `"${String(input).trim()}" is ${r.value} bytes; a message is a whole number of bytes (e.g. "300B")` };
  return r;
}
/** Radio power in dBm (a logarithmic unit: 20dBm is 100 mW). */
export const parsePower = (input: unknown) => parseWithUnits(input, POWER_UNITS, 'power', '20dBm');
/** A power ratio in dB, such as a noise figure. */
export const parseDecibels = (input: unknown) => parseWithUnits(input, DECIBEL_UNITS, 'ratio in dB', '7dB');

const LENGTH_UNITS: Record<string, number> = { m: 1, km: 1000 };
const SPEED_UNITS: Record<string, number> = { 'm/s': 1, 'km/h': 1 / 3.6 };
const DENSITY_UNITS: Record<string, number> = { '/km': 1, 'veh/km': 1 };

/**
 * A quantity whose units may hold a slash (m/s, km/h, /km), or a bare number in the first unit:
 * a road's length as 2000 or 2km, a speed as 25 or 90km/h.
 */
function parseWithSlashUnits(input: unknown, units: Record<string, number>, what: string, example: string): ParseResult {
  if (typeof input === 'number')
    return Number.isFinite(input) ? { ok: true, value: input } : { ok: false, message: `${input} is not a ${what}` };
  if (typeof input !== 'string') return { ok: false, message: `expected a ${what} such as "${example}"` };
  const text = input.trim();
  const match = /^(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*([a-zA-Z/]*)$/.exec(text);
  if (!match) return { ok: false, message: `"${text}" is not a ${what}; write it like "${example}"` };
  const unit = match[2].toLowerCase();
  const factor = unit === '' ? 1 : units[unit];
  if (factor === undefined) {
    return {
      ok: false,
      message: `unknown unit "${match[2]}" in "${text}"; use one of ${Object.keys(units).join(', ')} (e.g. "${example}")`,
    };
  }
  return { ok: true, value: Number(match[1]) * factor };
}

/** Metres; a bare number is metres. */
export const parseLength = (input: unknown) => parseWithSlashUnits(input, LENGTH_UNITS, 'length', '2km');
/** Metres per second; a bare number is m/s. */
export const parseSpeed = (input: unknown) => parseWithSlashUnits(input, SPEED_UNITS, 'speed', '25m/s');
/** Vehicles per kilometre; a bare number is per km. */
export const parseDensity = (input: unknown) => parseWithSlashUnits(input, DENSITY_UNITS, 'density', '120/km');

export function formatDuration(seconds: number): string {
  if (seconds !== 0 && Math.abs(seconds) < 1) return `${+(seconds * 1e3).toFixed(6)}ms`;
  return `${+seconds.toFixed(9)}s`;
}

export function formatDataRate(bps: number): string {
  if (bps >= 1e9 && bps % 1e9 === 0) return `${bps / 1e9}Gbps`;
  if (bps >= 1e6 && bps % 1e6 === 0) return `${bps / 1e6}Mbps`;
  if (bps >= 1e3 && bps % 1e3 === 0) return `${bps / 1e3}kbps`;
  return `${bps}bps`;
}
