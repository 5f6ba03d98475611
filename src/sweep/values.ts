import {
  type ParseResult,
  parseByteSize,
  parseDataRate,
  parseDecibels,
  parseDensity,
  parseDuration,
  parseFrequency,
  parsePower,
  parseSpeed,
} from '../scenario/units.js';
import { MAX_SWEEP_RUNS } from './limits.js';

/** One value of a swept field: the text handed to `--set`, and the number (in `unit`) used in tables and plots. */
export interface SweepValue {
  text: string;
  /** Numeric value in `unit`; undefined for words such as `true` or `csma`. */
  value?: number;
  unit: string;
}

export type ValuesResult = { ok: true; values: SweepValue[] } | { ok: false; message: string };

/** Without a step, a range yields this many evenly spaced values including both ends. */
export const DEFAULT_RANGE_COUNT = 10;

// Units may hold a slash: a density of 120/km or 120veh/km, a speed of 90km/h.
const QUANTITY = /^\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*([a-zA-Z]*(?:\/[a-zA-Z]+)?)\s*$/;

interface Quantity {
  value: number;
  unit: string;
}

/** Beyond this, keeping 6 decimals is meaningless and 1e308 would round to Infinity. */
const MAX_MAGNITUDE = 1e15;

/** A number with an optional unit; undefined for words and for numbers larger than MAX_MAGNITUDE. */
function parseQuantity(text: string): Quantity | undefined {
  const m = QUANTITY.exec(text);
  return m && Math.abs(Number(m[1])) <= MAX_MAGNITUDE ? { value: Number(m[1]), unit: m[2] } : undefined;
}

/** A unit as named in messages; a range or list without one says where to write it. */
const unitName = (unit: string) => unit || 'no unit (write it after the last number, e.g. 10..300ms:10ms)';

/** Keeps 42.2222222 readable and stable across platforms: at most 6 decimals, no trailing zeros. */
export function formatNumber(v: number): string {
  const rounded = Math.round(v * 1e6) / 1e6;
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

export function quantity(value: number, unit: string): SweepValue {
  return { text: `${formatNumber(value)}${unit}`, value: Math.round(value * 1e6) / 1e6, unit };
}

const FAMILIES: ((input: unknown) => ParseResult)[] = [
  parseDuration,
  parseDataRate,
  parseFrequency,
  parseByteSize,
  parsePower,
  parseDecibels,
  parseDensity,
  parseSpeed,
];

/** Factor that turns a number in `from` into a number in `to` (`ms`→`s` is 0.001); undefined when they do not convert. */
export function unitFactor(from: string, to: string): number | undefined {
  if (from === to) return 1;
  if (!from || !to) return undefined;
  for (const parse of FAMILIES) {
    const a = parse(`1${from}`);
    const b = parse(`1${to}`);
    if (a.ok && b.ok) return a.value / b.value;
  }
  return undefined;
}

/**
 * Parses the values of one swept field:
 * - `10..300ms:10ms` a range with a step (the end is included when the step lands on it),
 * - `10..300ms` ten evenly spaced values including both ends,
 * - `10,100,200,300ms` a list (a trailing unit applies to the items written without one),
 * - `true,false` or `csma` words, passed to the scenario as written.
 */
export function parseSweepValues(input: string): ValuesResult {
  const text = input.trim();
  if (!text) return { ok: false, message: 'no values given; write e.g. 10..300ms, 10..300ms:10ms or 10,100,200ms' };
  const parsed = text.includes('..') ? parseRange(text) : parseList(text);
  return parsed.ok ? withoutRepeats(text, parsed.values) : parsed;
}

/** A value given twice would run the same point twice under two ids; values are kept to 6 decimals. */
function withoutRepeats(text: string, values: SweepValue[]): ValuesResult {
  const seen = new Set<string>();
  for (const v of values) {
    const key = v.value === undefined ? v.text : `${v.value}`;
    if (seen.has(key))
      return {
        ok: false,
        message: `"${text}" gives ${v.text} twice (values are kept to 6 decimals); give each value once${text.includes(':') ? ', or use a larger step' : ''}`,
      };
    seen.add(key);
  }
  return { ok: true, values };
}

function parseRange(text: string): ValuesResult {
  const [span, stepText, ...extra] = text.split(':');
  const ends = span.split('..');
  if (ends.length !== 2 || extra.length)
    return { ok: false, message: `"${text}" is not a range; write it like 10..300ms or 10..300ms:10ms` };
  const lo = parseQuantity(ends[0]);
  const hi = parseQuantity(ends[1]);
  if (!lo || !hi) return { ok: false, message: `"${text}": both ends of a range must be numbers (at most 1e15), e.g. 10..300ms` };
  const unit = hi.unit || lo.unit;
  const loValue = convert(lo, unit);
  if (loValue === undefined) return { ok: false, message: `"${text}": ${lo.unit} and ${unit} do not convert into each other` };
  if (loValue > hi.value) return { ok: false, message: `"${text}": the range runs backwards; write the smaller end first` };
  if (stepText === undefined) return { ok: true, values: evenlySpaced(loValue, hi.value, DEFAULT_RANGE_COUNT, unit) };
  const step = parseQuantity(stepText);
  if (!step) return { ok: false, message: `"${text}": the step "${stepText}" is not a number` };
  const stepValue = convert(step, unit);
  if (stepValue === undefined)
    return { ok: false, message: `"${text}": the step's unit ${step.unit} does not convert to ${unitName(unit)}` };
  if (!(stepValue > 0)) return { ok: false, message: `"${text}": the step must be greater than zero` };
  const count = Math.floor((hi.value - loValue) / stepValue + 1e-9) + 1;
  if (!(count <= MAX_SWEEP_RUNS))
    return {
      ok: false,
      message: `"${text}" gives ${Number.isFinite(count) ? count.toLocaleString('en-US') : 'too many'} values, more than the ${MAX_SWEEP_RUNS.toLocaleString('en-US')} runs a sweep may plan; use a larger step`,
    };
  return { ok: true, values: Array.from({ length: count }, (_, i) => quantity(loValue + i * stepValue, unit)) };
}

/** `count` values from lo to hi inclusive; computed by index so the last one is exactly `hi`. */
export function evenlySpaced(lo: number, hi: number, count: number, unit: string): SweepValue[] {
  if (lo === hi) return [quantity(lo, unit)];
  return Array.from({ length: count }, (_, i) => quantity(i === count - 1 ? hi : lo + ((hi - lo) * i) / (count - 1), unit));
}

function convert(q: Quantity, unit: string): number | undefined {
  if (!q.unit) return q.value;
  const factor = unitFactor(q.unit, unit);
  return factor === undefined ? undefined : q.value * factor;
}

function parseList(text: string): ValuesResult {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => !s)) return { ok: false, message: `"${text}": the list has an empty item` };
  const quantities = items.map(parseQuantity);
  if (quantities.some((q) => q === undefined)) {
    if (quantities.some((q) => q !== undefined)) return { ok: false, message: `"${text}": a list mixes numbers and words` };
    return { ok: true, values: items.map((word) => ({ text: word, unit: '' })) };
  }
  const unit = quantities.at(-1)!.unit;
  const values: SweepValue[] = [];
  for (const q of quantities as Quantity[]) {
    // Items keep the text as written; their numbers are put in the list's unit so they plot on one axis.
    const value = convert(q, unit);
    if (value === undefined) return { ok: false, message: `"${text}": ${q.unit} does not convert to ${unitName(unit)}` };
    values.push({ text: `${formatNumber(q.value)}${q.unit || unit}`, value: Math.round(value * 1e6) / 1e6, unit });
  }
  return { ok: true, values };
}
