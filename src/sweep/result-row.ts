import type { RunStatus, RunSummary } from '../run/summary.js';
import { NO_REASON, reasonOfError } from './failed-runs.js';
import type { SweepPoint } from './grid.js';

/** What a sweep keeps of one finished run: the figures of summary.csv, plus where the run folder is. */
export interface SweepResult {
  id: string;
  key: string;
  gridIndex: number;
  repeat: number;
  /** The seed the run actually used (from its summary). */
  seed: number;
  values: SweepPoint['values'];
  /** Relative to the sweep folder. */
  runDir: string;
  /** `--retry-invalid`: this point's earlier runs, which ended `invalid` and were run again (relative, oldest first). */
  earlier_runs?: string[];
  status: RunStatus;
  reason?: string;
  min_ttc_s: number | null;
  min_distance_m: number | null;
  collision: boolean;
  first_collision_t_s: number | null;
  v2v_sent: number;
  v2v_lost: number;
  v2v_p50_ms: number | null;
  v2v_p99_ms: number | null;
  /** Smallest bumper-to-bumper gap; delivery ratio; beacons' mean age of information; a platoon's worst string-stability ratio. */
  min_gap_m?: number | null;
  delivery_ratio?: number | null;
  beacon_age_mean_ms?: number | null;
  string_stability_worst?: number | null;
  /** Mean channel busy ratio: each radio's own where the channel keeps one, else the on-air estimate. */
  cbr_mean?: number | null;
  sim_time_s: number;
  wall_time_s: number;
  /** Numeric timing figures of the run summary (emulated runs: step lateness and the like), flattened. */
  timing: Record<string, number>;
}

export function resultFromSummary(point: SweepPoint, key: string, summary: RunSummary, runDir: string): SweepResult {
  return {
    id: point.id,
    key,
    gridIndex: point.gridIndex,
    repeat: point.repeat,
    seed: summary.seed,
    values: point.values,
    runDir,
    status: summary.status,
    ...(summary.reason ? { reason: summary.reason } : summary.status === 'failed' ? { reason: NO_REASON } : {}),
    min_ttc_s: summary.min_ttc_s,
    min_distance_m: summary.min_distance_m,
    collision: summary.collision,
    first_collision_t_s: summary.first_collision_t_s,
    v2v_sent: summary.v2v.sent,
    v2v_lost: summary.v2v.lost,
    v2v_p50_ms: summary.v2v.p50_ms,
    v2v_p99_ms: summary.v2v.p99_ms,
    min_gap_m: summary.min_gap_m ?? null,
    delivery_ratio: summary.v2v.delivery_ratio ?? null,
    // Fixed beacons have their own age figures; a CAM fleet's is the age over every pair it received.
    beacon_age_mean_ms: summary.v2v.beacon_age?.mean_ms ?? summary.v2v.cam?.all?.age?.mean_ms ?? null,
    string_stability_worst: worstRatio(summary),
    cbr_mean: summary.v2v.cbr?.mean ?? summary.v2v.channel_busy?.mean ?? null,
    sim_time_s: summary.sim_time_s,
    wall_time_s: summary.wall_time_s,
    timing: flattenNumbers(summary.timing ?? {}),
  };
}

function worstRatio(summary: RunSummary): number | null {
  const ratios = summary.platoon?.string_stability?.ratios.map((r) => r.ratio) ?? [];
  return ratios.length ? (ratios.some((r) => r === null) ? null : Math.max(...(ratios as number[]))) : null;
}

/** A run that threw before it could write a summary still gets a row, so the sweep shows it. */
export function failedResult(point: SweepPoint, key: string, error: unknown, runDir: string): SweepResult {
  return {
    id: point.id,
    key,
    gridIndex: point.gridIndex,
    repeat: point.repeat,
    seed: point.seed ?? NaN,
    values: point.values,
    runDir,
    status: 'failed',
    reason: reasonOfError(error),
    min_ttc_s: null,
    min_distance_m: null,
    collision: false,
    first_collision_t_s: null,
    v2v_sent: 0,
    v2v_lost: 0,
    v2v_p50_ms: null,
    v2v_p99_ms: null,
    sim_time_s: 0,
    wall_time_s: 0,
    timing: {},
  };
}

/** How many times a point was run for its recorded result: the last run and the earlier ones it replaced. */
export const attemptsOf = (r: Pick<SweepResult, 'earlier_runs'>) => 1 + (r.earlier_runs?.length ?? 0);

/** Finished for resume: it produced a verdict. Failed and interrupted runs are run again. */
export const isFinished = (r: Pick<SweepResult, 'status'>) => r.status === 'completed' || r.status === 'invalid';

export function flattenNumbers(value: Record<string, unknown>, prefix = ''): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'number' && Number.isFinite(v)) out[name] = v;
    else if (typeof v === 'boolean') out[name] = v ? 1 : 0;
    else if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flattenNumbers(v as Record<string, unknown>, name));
  }
  return out;
}
