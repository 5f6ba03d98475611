import { groupBy } from '../util/group-by.js';
import { type Criterion, pointFails } from './criteria.js';
import type { SweepResult } from './result-row.js';
import type { SweepValue } from './values.js';

/** A grid point's verdict on one criterion. */
export interface PointVerdict {
  values: Record<string, SweepValue>;
  /** null: no run of the point measured what the criterion needs. */
  fails: boolean | null;
  failing: number;
  measured: number;
}

/** Where one criterion flips along the first swept field, for one value of the other fields. */
export interface CriticalCut {
  /** The other fields' values (empty for a one-field sweep). */
  at: Record<string, string>;
  /** Largest value before the first failing one; null when the first value fails. */
  last_ok: string | null;
  /** The first failing value; null when none fails. */
  first_fail: string | null;
  /** No passing value after a failing one. */
  monotonic: boolean;
  /** Points measured / failing along this cut. */
  points: number;
  failing_points: number;
}

/** A criterion's answer: one cut for a one-field sweep, a critical curve (one cut per value of the others) for a grid. */
export interface CriterionAnswer {
  criterion: string;
  text: string;
  /** The swept field the critical value is given for (the first). */
  path: string;
  curve: CriticalCut[];
  failing_points: number;
  points: number;
}

/** Verdicts of every grid point (finished, valid runs only), in grid order. */
export function pointVerdicts(c: Criterion, paths: readonly string[], valid: readonly SweepResult[]): PointVerdict[] {
  const groups = groupBy(valid, (r) => paths.map((p) => r.values[p]?.text).join('&'));
  return [...groups.values()].map((runs) => ({ values: runs[0].values, ...pointFails(c, runs) }));
}

const compare = (a: SweepValue | undefined, b: SweepValue | undefined) =>
  a?.value !== undefined && b?.value !== undefined ? a.value - b.value : (a?.text ?? '').localeCompare(b?.text ?? '');

/** The flip of one criterion along the first field, per value of the others: the critical curve. */
export function criticalCurve(paths: readonly string[], verdicts: readonly PointVerdict[]): CriticalCut[] {
  const [x, ...others] = paths;
  const measured = verdicts.filter((v) => v.fails !== null);
  const groups = groupBy(
    [...measured].sort((a, b) => {
      for (const p of others) {
        const d = compare(a.values[p], b.values[p]);
        if (d) return d;
      }
      return compare(a.values[x], b.values[x]);
    }),
    (v) => others.map((p) => v.values[p]?.text).join('&'),
  );
  return [...groups.values()].map((cut) => {
    const k = cut.findIndex((v) => v.fails);
    return {
      at: Object.fromEntries(others.map((p) => [p, cut[0].values[p]?.text ?? ''])),
      last_ok: k < 0 ? (cut.at(-1)?.values[x]?.text ?? null) : k > 0 ? cut[k - 1].values[x].text : null,
      first_fail: k < 0 ? null : cut[k].values[x].text,
      monotonic: k < 0 || cut.slice(k).every((v) => v.fails),
      points: cut.length,
      failing_points: cut.filter((v) => v.fails).length,
    };
  });
}

/** The words of one cut: `from 100ms`, `none up to 280ms`, `from 10ms (every value)`, `first at 130ms, not monotonic`. */
export function cutText(cut: CriticalCut): string {
  if (cut.first_fail === null) return `none up to ${cut.last_ok}`;
  if (cut.last_ok === null && cut.monotonic) return `from ${cut.first_fail} (every value)`;
  if (!cut.monotonic) return `first at ${cut.first_fail}, not monotonic (${cut.failing_points} of ${cut.points} fail)`;
  return `from ${cut.first_fail}`;
}

/** The answer of one criterion over a grid of two or more fields: the critical value of the first field per value of the others. */
export function curveAnswer(c: Criterion, paths: readonly string[], verdicts: readonly PointVerdict[]): CriterionAnswer {
  const curve = criticalCurve(paths, verdicts);
  const [x, ...others] = paths;
  const measured = verdicts.filter((v) => v.fails !== null);
  const failing = measured.filter((v) => v.fails).length;
  const base = { criterion: c.name, path: x, curve, failing_points: failing, points: measured.length };
  if (!measured.length) return { ...base, text: `${c.name}: not measured by any run` };
  const label = (cut: CriticalCut) => others.map((p) => (others.length > 1 ? `${p}=${cut.at[p]}` : cut.at[p])).join(', ');
  const cuts = curve.map((cut) => `${label(cut)} → ${cutText(cut)}`).join('; ');
  return { ...base, text: `${c.bad} along ${x}, by ${others.join(', ')}: ${cuts}` };
}
