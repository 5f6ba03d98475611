import { UserInputError } from '../errors.js';
import { parseSweepValues, type SweepValue } from './values.js';

/** One swept field and its values, from `--set path=VALUES` or `--delay VALUES`. */
export interface SweepAxis {
  path: string;
  values: SweepValue[];
  /** Fields that advance with this one (`--zip`): the i-th value of each goes with the i-th of `values`. */
  zipped?: ZippedField[];
}

export interface ZippedField {
  path: string;
  values: SweepValue[];
}

/** One run of a sweep: a value per axis and a seed. Serialisable; recorded in the sweep folder. */
export interface SweepPoint {
  /** Stable id within the sweep, also the run folder's name: `p003-r1`. */
  id: string;
  /** Index of the grid point (same for every repeat of it). */
  gridIndex: number;
  repeat: number;
  /** undefined: the scenario's own seed is used (no --repeat). */
  seed?: number;
  values: Record<string, SweepValue>;
}

/** `path=VALUES` → axis; the values use the sweep syntax (ranges, steps, lists). `flag` is what the user typed, named in errors. */
export function parseAxis(assignment: string, flag: '--set' | '--delay' | '--density' = '--set'): SweepAxis {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new UserInputError(`--set ${assignment}: write it as path=VALUES, e.g. network.delay=10..300ms`);
  const path = assignment.slice(0, eq).trim();
  const parsed = parseSweepValues(assignment.slice(eq + 1));
  if (!parsed.ok) throw new UserInputError(`${flag === '--set' ? `--set ${path}` : flag}: ${parsed.message}`);
  return { path, values: parsed.values };
}

/** Several axes with one value each are plain overrides; the rest are swept. */
export function splitAxes(axes: readonly SweepAxis[]): { swept: SweepAxis[]; fixed: string[] } {
  const seen = new Set<string>();
  for (const a of axes) {
    if (seen.has(a.path)) throw new UserInputError(`${a.path} is swept twice; give it one list of values`);
    seen.add(a.path);
  }
  return {
    swept: axes.filter((a) => a.values.length > 1),
    fixed: axes.filter((a) => a.values.length === 1).map((a) => `${a.path}=${a.values[0].text}`),
  };
}

/**
 * The full grid: every combination of axis values (the first axis varies slowest), each repeated
 * `repeat` times. With repeats, repeat r runs with seed baseSeed + r, so every grid point sees the
 * same seeds and differences between points are not noise between seeds.
 */
export function expandGrid(axes: readonly SweepAxis[], repeat: number, baseSeed: number): SweepPoint[] {
  if (!Number.isInteger(repeat) || repeat < 1) throw new UserInputError(`--repeat ${repeat}: give a whole number of 1 or more`);
  let combos: Record<string, SweepValue>[] = [{}];
  for (const axis of axes)
    combos = combos.flatMap((c) =>
      axis.values.map((v, i) => ({
        ...c,
        [axis.path]: v,
        ...Object.fromEntries((axis.zipped ?? []).map((z) => [z.path, z.values[i]])),
      })),
    );
  const width = String(combos.length - 1).length;
  const points: SweepPoint[] = [];
  combos.forEach((values, gridIndex) => {
    for (let r = 0; r < repeat; r++) {
      const id = `p${String(gridIndex).padStart(Math.max(3, width), '0')}${repeat > 1 ? `-r${r}` : ''}`;
      points.push({ id, gridIndex, repeat: r, ...(repeat > 1 ? { seed: baseSeed + r } : {}), values });
    }
  });
  return points;
}

/** The `--set` assignments that make a point's scenario. */
export function pointOverrides(point: Pick<SweepPoint, 'values' | 'seed'>, fixed: readonly string[] = []): string[] {
  const out = [...fixed, ...Object.entries(point.values).map(([path, v]) => `${path}=${v.text}`)];
  if (point.seed !== undefined) out.push(`seed=${point.seed}`);
  return out;
}

/** Identifies what a point runs, independent of its id; resume and the critical search match on it. */
export function pointKey(point: Pick<SweepPoint, 'values' | 'seed'>): string {
  const values = Object.entries(point.values)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, v]) => `${path}=${v.text}`);
  return `${values.join('&')}#${point.seed ?? 'scenario'}`;
}

/**
 * `--zip`: the named swept fields (all of them when `names` is empty) advance together as one
 * axis, in the place of the first of them. They must have as many values each; `flagOf` names
 * the flag that gave a field, for the message.
 */
export function zipAxes(swept: readonly SweepAxis[], names: readonly string[], flagOf: (path: string) => string): SweepAxis[] {
  const unknown = names.filter((n) => !swept.some((a) => a.path === n));
  if (unknown.length)
    throw new UserInputError(
      `--zip ${names.join(',')}: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not swept`,
      [],
      `name swept fields (${swept.map((a) => a.path).join(', ') || 'none'}), or give --zip alone to zip every swept field`,
    );
  const members = names.length ? swept.filter((a) => names.includes(a.path)) : [...swept];
  if (members.length < 2)
    throw new UserInputError(
      '--zip pairs two or more swept fields; fewer are swept',
      [],
      'sweep a second field with more than one value, e.g. --delay 10,100,200ms --set network.loss=0,0.1,0.2 --zip',
    );
  const [lead, ...rest] = members;
  const uneven = rest.filter((a) => a.values.length !== lead.values.length);
  if (uneven.length)
    throw new UserInputError(
      '--zip advances its fields together, so each needs as many values',
      members.map((a) => `${flagOf(a.path)}: ${a.values.length} value${a.values.length > 1 ? 's' : ''}`),
      'give each zipped field the same number of values, or drop --zip to sweep every combination',
    );
  const zipped: SweepAxis = { ...lead, zipped: rest.map(({ path, values }) => ({ path, values })) };
  return swept.filter((a) => !rest.includes(a)).map((a) => (a === lead ? zipped : a));
}
