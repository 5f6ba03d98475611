import { performance } from 'node:perf_hooks';
import { CavsimError } from '../errors.js';
import { RUN_FILES } from '../run/run-files.js';
import { type SweepAnswer, sweepAnswer } from './answer.js';
import { type Criterion, parseCriteria } from './criteria.js';
import { type CriticalSearchResult, findCritical, type Verdict } from './critical.js';
import { deliveryDistanceCsv, pointDeliveries } from './delivery-distance-table.js';
import { type SweepEvents, silentEvents } from './events.js';
import { pointKey, type SweepPoint } from './grid.js';
import type { PlannedSweep } from './plan-sweep.js';
import { isFinished, type SweepResult } from './result-row.js';
import { type BatchExecutor, type PointRunnerContext, type RunOne, runPoints } from './run-points.js';
import { SweepFolder, type SweepSpec } from './sweep-folder.js';
import { pointsCsv, summaryCsv, timingCsv } from './tables.js';
import { quantity, type SweepValue } from './values.js';

export interface SweepDeps {
  runOne: RunOne;
  /** Where the runs go instead of `runOne` lanes (a Slurm job array). */
  batch?: BatchExecutor;
  jobs: number;
  events?: SweepEvents;
  shouldStop?: () => boolean;
  now?: () => number;
  /** Emulated runs: times a point whose run ended `invalid` is run again. */
  retryInvalid?: number;
}

export interface SweepOutcome {
  sweepId: string;
  dir: string;
  spec: SweepSpec;
  results: SweepResult[];
  /** `--find-critical FIELD`: the search of the first criterion (`criticalByCriterion` has each). */
  critical?: CriticalSearchResult;
  criticalByCriterion?: CriticalSearchResult[];
  /** What the sweep found, in words and figures. */
  answer: SweepAnswer;
  /** Stopped early (Ctrl-C): finished runs are recorded, `--resume` completes the rest. */
  stopped: boolean;
}

/** Creates `sweeps/<id>/` for a planned sweep and runs it. */
export async function startSweep(plan: PlannedSweep, sweepsDir: string, deps: SweepDeps, sweepId?: string): Promise<SweepOutcome> {
  return executeSweep(SweepFolder.create(sweepsDir, plan, sweepId), deps);
}

/** Continues a sweep from its folder: finished runs are kept, the rest are run. */
export async function resumeSweep(sweepsDir: string, idOrDir: string, deps: SweepDeps): Promise<SweepOutcome> {
  return executeSweep(SweepFolder.open(sweepsDir, idOrDir), deps);
}

export async function executeSweep(folder: SweepFolder, deps: SweepDeps): Promise<SweepOutcome> {
  const events = deps.events ?? silentEvents;
  const now = deps.now ?? (() => performance.now());
  const shouldStop = deps.shouldStop ?? (() => false);
  const ctx: PointRunnerContext = {
    folder,
    runOne: deps.runOne,
    ...(deps.batch ? { batch: deps.batch } : {}),
    jobs: deps.jobs,
    events,
    shouldStop,
    now,
    ...(deps.retryInvalid ? { retryInvalid: deps.retryInvalid } : {}),
  };
  const started = now();
  const { spec } = folder;
  let critical: CriticalSearchResult | undefined;
  let searches: CriticalSearchResult[] = [];
  let total: number;
  let stopped = false;

  if (spec.mode.type === 'grid') {
    const points = spec.mode.points;
    total = points.length;
    const finishedKeys = new Set(
      folder
        .readResults()
        .filter(isFinished)
        .map((r) => r.key),
    );
    const alreadyDone = points.filter((p) => finishedKeys.has(pointKey(p))).length;
    events.emit({ type: 'sweep-start', sweepId: spec.id, dir: folder.dir, runtime: spec.runtime, jobs: deps.jobs, total, alreadyDone });
    await runPoints(points, ctx, { done: alreadyDone, total });
    stopped = shouldStop();
  } else {
    // One search per criterion; a value probed for one is recorded and not run again for the next.
    total = 0;
    for (const [i, criterion] of parseCriteria(spec.criteria).entries()) {
      const search = await searchCritical(folder, ctx, criterion, i === 0);
      total = Math.max(total, search.runs);
      stopped = search.stopped;
      if (!search.result) break;
      searches.push(search.result);
      events.emit({ type: 'critical-result', result: search.result });
    }
    critical = searches[0];
    if (critical) folder.writeJson('critical.json', searches.length > 1 ? { ...critical, by_criterion: searches } : critical);
    if (stopped) searches = [];
  }

  const results = writeTables(folder);
  const answer = sweepAnswer(spec, results, searches.length ? searches : undefined);
  folder.writeJson('answer.json', answer);
  events.emit({ type: 'answer', answer });
  events.emit({
    type: 'sweep-done',
    sweepId: spec.id,
    dir: folder.dir,
    done: results.filter(isFinished).length,
    total,
    stopped,
    wallSeconds: (now() - started) / 1000,
  });
  return {
    sweepId: spec.id,
    dir: folder.dir,
    spec,
    results,
    critical,
    ...(searches.length > 1 ? { criticalByCriterion: searches } : {}),
    answer,
    stopped,
  };
}

/** (Re)writes summary.csv and points.csv from the recorded results; returns them. */
export function writeTables(folder: SweepFolder): SweepResult[] {
  const results = folder.readResults();
  folder.writeText('summary.csv', summaryCsv(folder.spec, results));
  folder.writeText('points.csv', pointsCsv(folder.spec, results));
  folder.writeText('timing.csv', timingCsv(folder.spec, results));
  const delivery = deliveryDistanceCsv(folder.spec, pointDeliveries(folder.spec, folder.dir, results), results);
  if (delivery) folder.writeText(RUN_FILES.deliveryDistance, delivery);
  return results;
}

class StopRequested extends Error {}

/**
 * The critical search on real runs: each probed value runs once per repeat (seeds baseSeed + r),
 * and collides when any of its runs does. Probes go through runPoints, so they are recorded and
 * reused on --resume like grid points.
 */
async function searchCritical(
  folder: SweepFolder,
  ctx: PointRunnerContext,
  criterion: Criterion,
  first: boolean,
): Promise<{ result?: CriticalSearchResult; runs: number; stopped: boolean }> {
  const { spec } = folder;
  if (spec.mode.type !== 'critical') throw new Error('not a critical search');
  const mode = spec.mode;
  const indexByText = new Map<string, number>();
  for (const r of folder.readResults()) indexByText.set(r.values[mode.path]?.text, r.gridIndex);
  const parallel = Math.max(1, Math.floor(ctx.jobs / spec.repeat));
  const progress = { done: 0, total: estimateProbes(mode, parallel) * spec.repeat };
  if (first)
    ctx.events.emit({
      type: 'sweep-start',
      sweepId: spec.id,
      dir: folder.dir,
      runtime: spec.runtime,
      jobs: ctx.jobs,
      total: progress.total,
      alreadyDone: 0,
    });

  const pointsFor = (value: SweepValue): SweepPoint[] => {
    const gridIndex = indexByText.get(value.text) ?? indexByText.size;
    indexByText.set(value.text, gridIndex);
    return Array.from({ length: spec.repeat }, (_, r) => ({
      id: `c${String(gridIndex).padStart(3, '0')}${spec.repeat > 1 ? `-r${r}` : ''}`,
      gridIndex,
      repeat: r,
      ...(spec.repeat > 1 ? { seed: spec.baseSeed + r } : {}),
      values: { [mode.path]: value },
    }));
  };

  const probe = async (values: number[]): Promise<Verdict[]> => {
    const asValues = values.map((v) => quantity(v, mode.unit));
    const perValue = asValues.map(pointsFor);
    const results = await runPoints(perValue.flat(), ctx, progress);
    if (ctx.shouldStop()) throw new StopRequested();
    const byKey = new Map(results.map((r) => [r.key, r]));
    return perValue.map((points, i) => {
      const runs = points.map((p) => byKey.get(pointKey(p)));
      const missing = runs.findIndex((r) => !r || !isFinished(r));
      if (missing >= 0) {
        const r = runs[missing];
        throw new CavsimError(
          'RUN_FAILED',
          `the run at ${mode.path}=${asValues[i].text} did not finish (${r?.status ?? 'no result'}), so the search cannot decide`,
          'see the run folder and summary.csv; fix the cause and --resume',
          r?.reason ? [r.reason] : [],
        );
      }
      // `collision` here is the criterion's verdict: a run it cannot judge (no platoon) counts as passing.
      const collided = runs.filter((r) => criterion.fails(r!) === true).length;
      return { collision: collided > 0, ...(collided > 0 && collided < runs.length ? { mixed: true } : {}) };
    });
  };

  // Probes on the grid of what runs can tell apart; a bracket narrower than it would be invented.
  const step = mode.resolution;
  const snap = (v: number) => quantity(step ? Math.round(v / step) * step : v, mode.unit).value!;
  try {
    const found = await findCritical(probe, {
      lo: mode.lo.value!,
      hi: mode.hi.value!,
      tolerance: Math.max(mode.tolerance, step ?? 0),
      coarse: mode.coarse,
      parallel,
      snap,
      onSample: (s, bracket) =>
        ctx.events.emit({
          type: 'critical-probe',
          path: mode.path,
          value: quantity(s.value, mode.unit).text,
          collision: s.collision,
          bracket: bracket ? { lo: quantity(bracket.lo, mode.unit).text, hi: quantity(bracket.hi, mode.unit).text } : null,
        }),
    });
    const text = (v: number | null) => (v === null ? null : quantity(v, mode.unit).text);
    const result: CriticalSearchResult = {
      path: mode.path,
      unit: mode.unit,
      ...found,
      ...(step ? { resolution: step } : {}),
      lastSafeText: text(found.lastSafe),
      firstCollisionText: text(found.firstCollision),
    };
    return { result, runs: progress.done, stopped: false };
  } catch (err) {
    if (err instanceof StopRequested) return { runs: progress.done, stopped: true };
    throw err;
  }
}

/** Number of probes when the outcome is monotonic: the coarse pass, then `parallel` per round until the bracket fits the tolerance. */
export function estimateProbes(mode: Extract<SweepSpec['mode'], { type: 'critical' }>, parallel: number): number {
  const width = (mode.hi.value! - mode.lo.value!) / (mode.coarse - 1);
  const rounds = Math.max(0, Math.ceil(Math.log(width / mode.tolerance) / Math.log(parallel + 1) - 1e-9));
  return mode.coarse + rounds * parallel;
}
