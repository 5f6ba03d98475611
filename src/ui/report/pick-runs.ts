import type { CriticalSearchResult } from '../../sweep/critical.js';
import type { SweepResult } from '../../sweep/result-row.js';
import type { SweepSpec } from '../../sweep/sweep-folder.js';
import { orderResults, sweptPaths } from '../../sweep/tables.js';

/** Rows of a sweep's kinematics overview; more would not fit a page. */
export const MAX_KINEMATICS_ROWS = 6;

/** Swept values are floats that went through text and back: equal within a part in 1e9. */
const sameValue = (a: number | undefined, b: number | null) =>
  a !== undefined && b !== null && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

export interface PickedRuns {
  picked: SweepResult[];
  /** The first axis's values (as written) of the runs not drawn. */
  leftOut: string[];
}

/**
 * Runs for the overview: the first seed, the other axes at their first value, along the first
 * axis. Always the two ends and the runs on either side of every change of outcome (the last value
 * that stopped apart and the first that collided, which an evenly spread pick used to step over);
 * the rows left are spread evenly. A critical search's bracket counts as such a change.
 */
export function pickKinematicsRuns(spec: SweepSpec, done: readonly SweepResult[], critical?: CriticalSearchResult): PickedRuns {
  const [xPath, ...others] = sweptPaths(spec);
  const firstSeed = done.filter((r) => r.repeat === 0);
  const firstOfOthers = firstSeed.filter((r) => others.every((p) => r.values[p]?.text === firstSeed[0].values[p]?.text));
  const ordered = orderResults(spec, firstOfOthers);
  if (ordered.length <= MAX_KINEMATICS_ROWS) return { picked: ordered, leftOut: [] };
  const wanted = new Set<number>([0, ordered.length - 1]);
  if (critical?.status === 'found') {
    for (const v of [critical.lastSafe, critical.firstCollision]) {
      const i = ordered.findIndex((r) => sameValue(r.values[xPath]?.value, v));
      if (i >= 0) wanted.add(i);
    }
  }
  for (let i = 1; i < ordered.length && wanted.size < MAX_KINEMATICS_ROWS; i++) {
    if (ordered[i].collision !== ordered[i - 1].collision) {
      wanted.add(i - 1);
      if (wanted.size < MAX_KINEMATICS_ROWS) wanted.add(i);
    }
  }
  // Fill with values spread evenly over the axis, nearest first to the even positions.
  const step = (ordered.length - 1) / (MAX_KINEMATICS_ROWS - 1);
  const spread = critical?.status !== 'found';
  for (let k = 1; spread && k < MAX_KINEMATICS_ROWS - 1 && wanted.size < MAX_KINEMATICS_ROWS; k++) {
    const target = Math.round(k * step);
    const free = [...ordered.keys()].filter((i) => !wanted.has(i)).sort((a, b) => Math.abs(a - target) - Math.abs(b - target))[0];
    if (free !== undefined) wanted.add(free);
  }
  const picked = [...wanted].sort((a, b) => a - b).map((i) => ordered[i]);
  return { picked, leftOut: ordered.filter((r) => !picked.includes(r)).map((r) => r.values[xPath]?.text ?? '') };
}
