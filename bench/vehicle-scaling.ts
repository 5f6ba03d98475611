/**
 * The emulated suite's vehicle-count scaling, minus the runs themselves: which counts to run, the
 * rows for one run, and the smallest count whose run was not valid. Pure, so unit-tested.
 */
import { CavsimError } from '../src/errors.js';
import type { RunStatus } from '../src/run/summary.js';
import type { StepTimingFigures } from '../src/runtime/emulated/containers/step-timing.js';
import type { BenchRow } from './main.js';

export const DEFAULT_VEHICLE_COUNTS: readonly number[] = [8, 16, 32];
const SUITE = 'emulated-runtime';

/** `BENCH_VEHICLES=10,16`: the counts to run, ascending and without repeats; unset or empty: the defaults. */
export function parseVehicleCounts(text: string | undefined, defaults: readonly number[] = DEFAULT_VEHICLE_COUNTS): number[] {
  if (text === undefined || !text.trim()) return [...defaults];
  const counts = text.split(',').map((part) => {
    const trimmed = part.trim();
    if (!/^[0-9]+$/.test(trimmed) || Number(trimmed) < 1) {
      throw new Error(
        `BENCH_VEHICLES: "${trimmed}" is not a vehicle count; give whole numbers from 1 separated by commas, e.g. BENCH_VEHICLES=10,16`,
      );
    }
    return Number(trimmed);
  });
  return [...new Set(counts)].sort((a, b) => a - b);
}

/** One loop-track run at one vehicle count: what its summary said, or why it could not run. */
export interface ScalingOutcome {
  vehicles: number;
  /** What the cars carry beyond the controller, e.g. "lidar on every car". */
  extra?: string;
  status: RunStatus;
  reason?: string;
  simTimeS?: number;
  timing?: Partial<Record<keyof StepTimingFigures, unknown>>;
  /** Milliseconds since the run began, as runEmulated reports them. */
  phases?: Record<string, number>;
}

/** The smallest vehicle count whose run did not complete valid (invalid, failed or interrupted). */
export function smallestNotValid(outcomes: readonly ScalingOutcome[]): ScalingOutcome | undefined {
  return outcomes
    .filter((o) => o.status !== 'completed')
    .reduce<ScalingOutcome | undefined>((min, o) => (!min || o.vehicles < min.vehicles ? o : min), undefined);
}

/** The final row: that count (0 when every run was valid, and the note says so). */
export function notValidRow(outcomes: readonly ScalingOutcome[]): BenchRow {
  const name = 'loop: smallest vehicle count not valid';
  const first = smallestNotValid(outcomes);
  if (!first) {
    const counts = outcomes.map((o) => o.vehicles).join(', ');
    return {
      suite: SUITE,
      name,
      value: 0,
      unit: 'vehicles',
      note: outcomes.length ? `none: all valid (${counts})` : 'none: no vehicle counts were run',
    };
  }
  return { suite: SUITE, name, value: first.vehicles, unit: 'vehicles', note: statusNote(first) };
}

/**
 * Rows for one count: status (value: simulated seconds), start-up, step lateness, drive-command lag,
 * late commands and the ratio to the timer baseline. A failed run gets its status row only; a
 * figure the run did not produce (null) gets no row.
 */
export function scalingRows(o: ScalingOutcome, baselineP99Ms: number): BenchRow[] {
  const label = `${o.vehicles} vehicles (loop${o.extra ? `, ${o.extra}` : ''})`;
  const rows: BenchRow[] = [{ suite: SUITE, name: `${label}: status`, value: o.simTimeS ?? 0, unit: 's simulated', note: statusNote(o) }];
  if (o.status === 'failed') return rows;
  const t = o.timing ?? {};
  const p = o.phases ?? {};
  const add = (name: string, value: number | undefined, unit: string, extra: Partial<BenchRow> = {}) => {
    if (value !== undefined && Number.isFinite(value)) rows.push({ suite: SUITE, name: `${label}: ${name}`, value, unit, ...extra });
  };
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const ms = (v: unknown) => (typeof v === 'number' ? v.toFixed(3) : '?');
  const s = (v: number | undefined) => (v === undefined ? '?' : `${(v / 1000).toFixed(2)} s`);
  const sub = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a - b);

  add('up to first physics step', p.started === undefined ? undefined : p.started / 1000, 's', {
    note: `containers ${s(sub(p.containers, p.compiled))}, host network + ns-3 ${s(sub(p.channel, p.containers))}, teardown ${s(p.teardown)}`,
  });
  const stepP99 = num(t.step_lateness_p99_ms);
  add('step lateness p99', stepP99, 'ms', {
    ...(o.vehicles === 10 ? { target: '< 1 ms' } : {}),
    note: `late steps ${pct(t.late_fraction)} (> ${t.late_threshold_ms ?? '?'} ms)`,
  });
  add('drive-command lag p99', num(t.control_lag_p99_ms), 'ms', {
    note: `p50 ${ms(t.control_lag_p50_ms)}, max ${ms(t.control_lag_max_ms)}`,
  });
  add('late drive commands', num(t.late_command_fraction) === undefined ? undefined : num(t.late_command_fraction)! * 100, '%', {
    note: `${t.late_commands ?? '?'} of ${t.control_commands ?? '?'} applied a step late${t.late_command_steps ? `, answering ${t.late_command_steps} steps` : ''}`,
  });
  if (stepP99 !== undefined && baselineP99Ms > 0) {
    rows.push({
      suite: SUITE,
      name: `${o.vehicles} vehicles: step lateness p99 / timer baseline p99`,
      value: stepP99 / baselineP99Ms,
      unit: 'x',
    });
  }
  return rows;
}

/**
 * The same count with the build before (BENCH_OLD_BUILD), side by side: its status, and this
 * build's start-up (images left out: each build checks and may rebuild its own), teardown and
 * drive-command lag as ratios over it.
 */
export function comparisonRows(now: ScalingOutcome, before: ScalingOutcome): BenchRow[] {
  const label = `${now.vehicles} vehicles (loop${now.extra ? `, ${now.extra}` : ''})`;
  const rows: BenchRow[] = [
    { suite: SUITE, name: `${label}, build before: status`, value: before.simTimeS ?? 0, unit: 's simulated', note: statusNote(before) },
  ];
  const startUp = (o: ScalingOutcome) => (o.phases?.started === undefined ? undefined : o.phases.started - (o.phases.images ?? 0));
  const lagP99 = (o: ScalingOutcome) => (typeof o.timing?.control_lag_p99_ms === 'number' ? o.timing.control_lag_p99_ms : undefined);
  const late = (o: ScalingOutcome) =>
    typeof o.timing?.late_command_fraction === 'number' ? o.timing.late_command_fraction * 100 : undefined;
  const figures: [string, (o: ScalingOutcome) => number | undefined, string, number][] = [
    ['up to first physics step without the image check', startUp, 's', 1000],
    ['teardown', (o) => o.phases?.teardown, 's', 1000],
    ['drive-command lag p99', lagP99, 'ms', 1],
    ['late drive commands', late, '%', 1],
  ];
  for (const [name, figure, unit, scale] of figures) {
    const a = figure(now);
    const b = figure(before);
    if (a === undefined || b === undefined) continue;
    rows.push({
      suite: SUITE,
      name: `${label}, build before: ${name}`,
      value: b / scale,
      unit,
      note: `this build ${(a / scale).toFixed(3)} ${unit}`,
    });
    if (b > 0) rows.push({ suite: SUITE, name: `${label}: ${name}, this build / build before`, value: a / b, unit: 'x' });
  }
  return rows;
}

/** A thrown error as a failed run's reason, with a user-input error's details (e.g. which cars overlap). */
export function describeError(err: unknown): string {
  if (err instanceof CavsimError && err.details.length) return `${err.message}: ${err.details.join('; ')}`;
  return err instanceof Error ? err.message : String(err);
}

function statusNote(o: ScalingOutcome): string {
  return o.reason ? `${o.status}: ${o.reason}` : o.status;
}

function pct(v: unknown): string {
  return typeof v === 'number' ? `${(v * 100).toFixed(1)} %` : '?';
}
