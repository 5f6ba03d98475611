import { PARAM_RANGES, type RangedParam, rangeMessage } from '../core/physics/parameter-ranges.js';
import { z } from '../util/zod.js';
import {
  type ParseResult,
  parseByteSize,
  parseDataRate,
  parseDecibels,
  parseDensity,
  parseDuration,
  parseFrequency,
  parseLength,
  parsePayloadSize,
  parsePower,
  parseSpeed,
} from './units.js';

/**
 * The scenario schema's field builders: a quantity written with units (parsed into SI and
 * range-checked), a finite number, a vehicle parameter within its range.
 */

function quantity(
  parse: (v: unknown) => ParseResult,
  example: string,
  description: string,
  min: number,
  max: number,
  show: (v: number) => string,
) {
  return z
    .union([z.string(), z.number()])
    .meta({ description, examples: [example] })
    .transform((input, ctx) => {
      const parsed = parse(input);
      if (!parsed.ok) {
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      }
      if (parsed.value < min || parsed.value > max) {
        ctx.addIssue({ code: 'custom', message: `${input} is out of range; use a value from ${show(min)} to ${show(max)}` });
        return z.NEVER;
      }
      return parsed.value;
    });
}

const showSeconds = (s: number) => (s < 1 ? `${+(s * 1000).toFixed(3)}ms` : `${s}s`);
export const duration = (description: string, min = 0, max = 3600) => quantity(parseDuration, '10ms', description, min, max, showSeconds);
export const dataRate = (description: string) => quantity(parseDataRate, '100Mbps', description, 1e3, 1e11, (v) => `${v / 1e6}Mbps`);
export const frequency = (description: string) => quantity(parseFrequency, '100Hz', description, 0.1, 1000, (v) => `${v}Hz`);
export const byteSize = (description: string) =>
  quantity(parseByteSize, '256m', description, 16 * 1024 ** 2, 64 * 1024 ** 3, (v) => `${Math.round(v / 1024 ** 2)}m`);

export const payloadSize = (description: string) => quantity(parsePayloadSize, '300B', description, 1, 65507, (v) => `${v}B`);
export const power = (description: string) => quantity(parsePower, '20dBm', description, -30, 40, (v) => `${v}dBm`);
/** A power a receiver senses: a noise floor or a threshold. */
export const receivedPower = (description: string) => quantity(parsePower, '-85dBm', description, -130, -30, (v) => `${v}dBm`);
export const decibels = (description: string) => quantity(parseDecibels, '7dB', description, 0, 30, (v) => `${v}dB`);

/** Lengths, speeds and densities also take a bare number, in m, m/s and vehicles per km. */
export const length = (description: string, min: number, max: number, example = '2km') =>
  quantity(parseLength, example, description, min, max, (v) => (v >= 1000 ? `${v / 1000}km` : `${v}m`));
export const speed = (description: string, min: number, max: number, example = '25m/s') =>
  quantity(parseSpeed, example, description, min, max, (v) => `${v}m/s`);
export const density = (description: string, min: number, max: number) =>
  quantity(parseDensity, '120/km', description, min, max, (v) => `${v}/km`);

export const finite = (description: string) => z.number().finite().describe(description);

export const ranged = (param: RangedParam, description: string) => {
  const error = (issue: { input?: unknown }) => `${issue.input} ${rangeMessage(param)}`;
  return finite(description).min(PARAM_RANGES[param].min, { error }).max(PARAM_RANGES[param].max, { error });
};
