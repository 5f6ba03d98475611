import { stringify } from 'csv-stringify/sync';
import { groupBy } from '../util/group-by.js';
import { parseCriteria, pointFails } from './criteria.js';
import { attemptsOf, type SweepResult } from './result-row.js';
import { type MeanInterval, meanInterval, NON_NEGATIVE, RATIO, wilsonInterval } from './stats.js';
import type { SweepSpec } from './sweep-folder.js';
import type { SweepValue } from './values.js';

/** The swept fields, in grid order. */
export function sweptPaths(spec: SweepSpec): string[] {
  return spec.mode.type === 'critical' ? [spec.mode.path] : spec.axes.map((a) => a.path);
}

/** The swept fields with, after each, the fields `--zip` advances with it: the columns of summary.csv and points.csv. */
export function columnPaths(spec: SweepSpec): string[] {
  return spec.mode.type === 'critical' ? [spec.mode.path] : spec.axes.flatMap((a) => [a.path, ...(a.zipped ?? []).map((z) => z.path)]);
}

/** Column header of a swept field: `network.delay_ms` when the values carry a unit (`traffic.density_per_km` for /km). */
export function axisColumn(path: string, results: readonly SweepResult[]): string {
  const unit = results.find((r) => r.values[path]?.unit)?.values[path].unit;
  return unit ? `${path}_${unit.replace(/^\//, 'per_').replace('/', '_per_')}` : path;
}

const axisCell = (v: SweepValue | undefined) => (v === undefined ? '' : (v.value ?? v.text));

/** Results in a stable order: by swept values, then repeat. */
export function orderResults(spec: SweepSpec, results: readonly SweepResult[]): SweepResult[] {
  const paths = sweptPaths(spec);
  return [...results].sort((a, b) => {
    for (const p of paths) {
      const d = compareValues(a.values[p], b.values[p]);
      if (d) return d;
    }
    return a.repeat - b.repeat;
  });
}

function compareValues(a: SweepValue | undefined, b: SweepValue | undefined): number {
  if (a?.value !== undefined && b?.value !== undefined) return a.value - b.value;
  return (a?.text ?? '').localeCompare(b?.text ?? '');
}

/**
 * summary.csv: one row per run, what the simulation measured; the same sweep writes the same bytes
 * whichever executor ran it. What the host measured (wall time, timing figures) is in timing.csv.
 */
export function summaryCsv(spec: SweepSpec, results: readonly SweepResult[]): string {
  const paths = columnPaths(spec);
  const ordered = orderResults(spec, results);
  const header = [
    'run',
    'repeat',
    'seed',
    ...paths.map((p) => axisColumn(p, ordered)),
    'status',
    'collision',
    'min_ttc_s',
    'min_distance_m',
    'first_collision_t_s',
    'v2v_sent',
    'v2v_lost',
    'v2v_p50_ms',
    'v2v_p99_ms',
    'min_gap_m',
    'delivery_ratio',
    'beacon_age_mean_ms',
    'string_stability_worst',
    'cbr_mean',
    'sim_time_s',
    'reason',
    'run_dir',
  ];
  const rows = ordered.map((r) => [
    r.id,
    r.repeat,
    Number.isFinite(r.seed) ? r.seed : '',
    ...paths.map((p) => axisCell(r.values[p])),
    r.status,
    String(r.collision),
    r.min_ttc_s ?? '',
    r.min_distance_m ?? '',
    r.first_collision_t_s ?? '',
    r.v2v_sent,
    r.v2v_lost,
    r.v2v_p50_ms ?? '',
    r.v2v_p99_ms ?? '',
    r.min_gap_m ?? '',
    r.delivery_ratio ?? '',
    r.beacon_age_mean_ms ?? '',
    r.string_stability_worst ?? '',
    r.cbr_mean ?? '',
    r.sim_time_s,
    r.reason ?? '',
    r.runDir,
  ]);
  return stringify([header, ...rows]);
}

/** timing.csv: one row per run, what the host measured: wall time, how many attempts (`--retry-invalid`) and the run's timing figures. */
export function timingCsv(spec: SweepSpec, results: readonly SweepResult[]): string {
  const ordered = orderResults(spec, results);
  const timingKeys = [...new Set(ordered.flatMap((r) => Object.keys(r.timing)))].sort();
  const header = ['run', 'repeat', 'wall_time_s', 'attempts', ...timingKeys.map((k) => `timing.${k}`)];
  const rows = ordered.map((r) => [r.id, r.repeat, r.wall_time_s, attemptsOf(r), ...timingKeys.map((k) => r.timing[k] ?? '')]);
  return stringify([header, ...rows]);
}

/** The figures points.csv averages per point, with the range their interval is clipped to. */
export const POINT_METRICS = [
  { column: 'min_ttc_s', range: NON_NEGATIVE, of: (r: SweepResult) => r.min_ttc_s },
  { column: 'min_distance_m', range: NON_NEGATIVE, of: (r: SweepResult) => r.min_distance_m },
  { column: 'min_gap_m', range: NON_NEGATIVE, of: (r: SweepResult) => r.min_gap_m },
  { column: 'v2v_p50_ms', range: NON_NEGATIVE, of: (r: SweepResult) => r.v2v_p50_ms },
  { column: 'v2v_p99_ms', range: NON_NEGATIVE, of: (r: SweepResult) => r.v2v_p99_ms },
  { column: 'delivery_ratio', range: RATIO, of: (r: SweepResult) => r.delivery_ratio },
  { column: 'beacon_age_mean_ms', range: NON_NEGATIVE, of: (r: SweepResult) => r.beacon_age_mean_ms },
  { column: 'string_stability_worst', range: NON_NEGATIVE, of: (r: SweepResult) => r.string_stability_worst },
  { column: 'cbr_mean', range: RATIO, of: (r: SweepResult) => r.cbr_mean },
] as const;

/** The runs of one grid point (same swept values, any seed), with means and 95% intervals. */
export interface PointStats {
  values: Record<string, SweepValue>;
  runs: number;
  /** Runs whose figures count: completed ones (invalid and failed runs are listed, not averaged). */
  valid: number;
  collisions: number;
  minTtc: MeanInterval;
  minDistance: MeanInterval;
  /** Bumper to bumper (0 on contact); null means for runs written before the gap was measured. */
  minGap: MeanInterval;
  v2vP50: MeanInterval;
  v2vP99: MeanInterval;
  /** Every POINT_METRICS column's mean and interval. */
  metrics: Record<string, MeanInterval>;
  /** The completed runs, for criteria. */
  validRuns: SweepResult[];
}

export function pointStats(spec: SweepSpec, results: readonly SweepResult[]): PointStats[] {
  const paths = sweptPaths(spec);
  const groups = groupBy(orderResults(spec, results), (r) => paths.map((p) => r.values[p]?.text).join('&'));
  return [...groups.values()].map((runs) => {
    const valid = runs.filter((r) => r.status === 'completed');
    const metrics = Object.fromEntries(POINT_METRICS.map((m) => [m.column, meanInterval(valid.map(m.of), m.range)]));
    return {
      values: runs[0].values,
      runs: runs.length,
      valid: valid.length,
      collisions: valid.filter((r) => r.collision).length,
      minTtc: metrics.min_ttc_s,
      minDistance: metrics.min_distance_m,
      minGap: metrics.min_gap_m,
      v2vP50: metrics.v2v_p50_ms,
      v2vP99: metrics.v2v_p99_ms,
      metrics,
      validRuns: valid,
    };
  });
}

/** A criterion's column stem: `string_unstable`, `delivery_below_0.9`, `aoi_above_200ms`, `gap_below_2m`. */
const criterionColumn = (name: string) =>
  name === 'string-stability' ? 'string_unstable' : name.replace('<', '_below_').replace('>', '_above_');

/**
 * points.csv: per grid point, the runs, the share of runs failing each criterion with its 95%
 * Wilson interval, and each figure's mean with its 95% interval (Student's t half-width, and its
 * ends clipped to the figure's range).
 */
export function pointsCsv(spec: SweepSpec, results: readonly SweepResult[]): string {
  const paths = columnPaths(spec);
  const stats = pointStats(spec, results);
  const criteria = parseCriteria(spec.criteria).filter((c) => c.name !== 'collision');
  const num = (v: number | null | undefined) => (v === null || v === undefined ? '' : +v.toFixed(6));
  const rate = (k: number, n: number) => {
    if (!n) return ['', '', ''];
    const w = wilsonInterval(k, n);
    return [num(k / n), num(w.lo), num(w.hi)];
  };
  const header = [
    ...paths.map((p) => axisColumn(p, results)),
    'runs',
    'valid_runs',
    'collisions',
    'collision_rate',
    'collision_rate_lo95',
    'collision_rate_hi95',
    ...criteria.flatMap((c) => {
      const stem = criterionColumn(c.name);
      return [`${stem}_runs`, `${stem}_measured`, `${stem}_rate`, `${stem}_rate_lo95`, `${stem}_rate_hi95`];
    }),
    ...POINT_METRICS.flatMap((m) => [`${m.column}_mean`, `${m.column}_ci95`, `${m.column}_lo95`, `${m.column}_hi95`]),
  ];
  const rows = stats.map((s) => [
    ...paths.map((p) => axisCell(s.values[p])),
    s.runs,
    s.valid,
    s.collisions,
    ...rate(s.collisions, s.valid),
    ...criteria.flatMap((c) => {
      const v = pointFails(c, s.validRuns);
      return [v.failing, v.measured, ...rate(v.failing, v.measured)];
    }),
    ...POINT_METRICS.flatMap((m) => {
      const i = s.metrics[m.column];
      return [num(i.mean), num(i.ci95), num(i.lo95), num(i.hi95)];
    }),
  ]);
  return stringify([header, ...rows]);
}
