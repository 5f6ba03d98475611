import { stringify } from 'csv-stringify/sync';
import { groupBy } from '../util/group-by.js';
import type { SweepResult } from './result-row.js';
import { type MeanInterval, meanInterval } from './stats.js';
import type { SweepSpec } from './sweep-folder.js';
import type { SweepValue } from './values.js';

/** The swept fields, in grid order. */
export function sweptPaths(spec: SweepSpec): string[] {
  return spec.mode.type === 'critical' ? [spec.mode.path] : spec.axes.map((a) => a.path);
}

/** Column header of a swept field: `network.delay_ms` when the values carry a unit. */
export function axisColumn(path: string, results: readonly SweepResult[]): string {
  const unit = results.find((r) => r.values[path]?.unit)?.values[path].unit;
  return unit ? `${path}_${unit}` : path;
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
  const paths = sweptPaths(spec);
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
    r.sim_time_s,
    r.reason ?? '',
    r.runDir,
  ]);
  return stringify([header, ...rows]);
}

/** timing.csv: one row per run, what the host measured: wall time and the run's timing figures. */
export function timingCsv(spec: SweepSpec, results: readonly SweepResult[]): string {
  const ordered = orderResults(spec, results);
  const timingKeys = [...new Set(ordered.flatMap((r) => Object.keys(r.timing)))].sort();
  const header = ['run', 'repeat', 'wall_time_s', ...timingKeys.map((k) => `timing.${k}`)];
  const rows = ordered.map((r) => [r.id, r.repeat, r.wall_time_s, ...timingKeys.map((k) => r.timing[k] ?? '')]);
  return stringify([header, ...rows]);
}

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
}

export function pointStats(spec: SweepSpec, results: readonly SweepResult[]): PointStats[] {
  const paths = sweptPaths(spec);
  const groups = groupBy(orderResults(spec, results), (r) => paths.map((p) => r.values[p]?.text).join('&'));
  return [...groups.values()].map((runs) => {
    const valid = runs.filter((r) => r.status === 'completed');
    return {
      values: runs[0].values,
      runs: runs.length,
      valid: valid.length,
      collisions: valid.filter((r) => r.collision).length,
      minTtc: meanInterval(valid.map((r) => r.min_ttc_s)),
      minDistance: meanInterval(valid.map((r) => r.min_distance_m)),
      minGap: meanInterval(valid.map((r) => r.min_gap_m ?? null)),
      v2vP50: meanInterval(valid.map((r) => r.v2v_p50_ms)),
      v2vP99: meanInterval(valid.map((r) => r.v2v_p99_ms)),
    };
  });
}

/** points.csv: per grid point, the mean of each figure over its repeats and the 95% interval's half-width. */
export function pointsCsv(spec: SweepSpec, results: readonly SweepResult[]): string {
  const paths = sweptPaths(spec);
  const stats = pointStats(spec, results);
  const num = (v: number | null) => (v === null ? '' : +v.toFixed(6));
  const header = [
    ...paths.map((p) => axisColumn(p, results)),
    'runs',
    'valid_runs',
    'collisions',
    'collision_rate',
    'min_ttc_s_mean',
    'min_ttc_s_ci95',
    'min_distance_m_mean',
    'min_distance_m_ci95',
    'v2v_p50_ms_mean',
    'v2v_p50_ms_ci95',
    'v2v_p99_ms_mean',
    'v2v_p99_ms_ci95',
  ];
  const rows = stats.map((s) => [
    ...paths.map((p) => axisCell(s.values[p])),
    s.runs,
    s.valid,
    s.collisions,
    s.valid ? num(s.collisions / s.valid) : '',
    num(s.minTtc.mean),
    num(s.minTtc.ci95),
    num(s.minDistance.mean),
    num(s.minDistance.ci95),
    num(s.v2vP50.mean),
    num(s.v2vP50.ci95),
    num(s.v2vP99.mean),
    num(s.v2vP99.ci95),
  ]);
  return stringify([header, ...rows]);
}
