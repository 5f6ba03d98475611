/**
 * How precisely cavsim prints a number of each unit, in events (events.csv, summary.json, the
 * terminal) and wherever else a number is written for a reader: finer than any model or
 * measurement resolves, coarse enough that float noise (0.6999999999999977) never shows. The CSV
 * logs write six decimals of every unit (measurement/csv-log.ts), the same as here but for ms and dB.
 */
export const PRINT_DECIMALS = {
  s: 6, // 1 µs
  ms: 3, // 1 µs
  m: 6, // 1 µm
  mps: 6,
  mps2: 6,
  rad: 6,
  radps: 6,
  dbm: 3,
  db: 3,
  /** a ratio, a count, a number of no unit */
  other: 6,
} as const;

export type PrintUnit = keyof typeof PRINT_DECIMALS;

/** `v` rounded to its unit's printed precision (an integer stays one; -0 prints as 0). */
export function printed(v: number, unit: PrintUnit = 'other'): number {
  if (!Number.isFinite(v) || Number.isInteger(v)) return v;
  return +v.toFixed(PRINT_DECIMALS[unit]) || 0;
}

/** The unit a snake_case field names by its suffix (`ttc_s`, `gap_m`, `latency_ms`), else 'other'. */
export function unitOfField(key: string): PrintUnit {
  const suffix = /_([a-z0-9]+)$/.exec(key)?.[1];
  return suffix !== undefined && suffix !== 'other' && suffix in PRINT_DECIMALS ? (suffix as PrintUnit) : 'other';
}

/** A copy of a JSON value with every number printed at its field's unit's precision. */
export function printedFields<T>(value: T, unit: PrintUnit = 'other'): T {
  if (typeof value === 'number') return printed(value, unit) as T;
  if (Array.isArray(value)) return value.map((v) => printedFields(v, unit)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printedFields(v, unitOfField(k))])) as T;
}
