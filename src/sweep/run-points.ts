import { relative } from 'node:path';
import type { RunOutcome } from '../api/run-simulated.js';
import { CavsimError } from '../errors.js';
import { secondsLeft, type TimedRun } from './eta.js';
import type { SweepEvents } from './events.js';
import { pointKey, pointOverrides, type SweepPoint } from './grid.js';
import { attemptsOf, failedResult, isFinished, resultFromSummary, type SweepResult } from './result-row.js';
import type { Runtime, SweepFolder } from './sweep-folder.js';

export interface RunRequest {
  runtime: Runtime;
  scenarioFile: string;
  overrides: string[];
  runsDir: string;
  runId: string;
}

/** Runs one scenario and returns its summary; the sweep's only way to run anything (sim, docker, or a fake in tests). */
export type RunOne = (request: RunRequest) => Promise<RunOutcome>;

/**
 * Runs a set of points elsewhere (a Slurm job array), recording each result in the folder as it
 * arrives and emitting the same events as the local lanes; returns when none is left to wait for.
 */
export interface BatchExecutor {
  readonly where: string;
  run(points: readonly SweepPoint[], ctx: PointRunnerContext, progress: { done: number; total: number }): Promise<void>;
}

export interface PointRunnerContext {
  folder: SweepFolder;
  runOne: RunOne;
  /** Set: the points go to this executor instead of `runOne` lanes. */
  batch?: BatchExecutor;
  jobs: number;
  events: SweepEvents;
  shouldStop: () => boolean;
  now: () => number;
  /** Emulated runs: how many times a point whose run ended `invalid` is run again (each attempt's folder is kept). */
  retryInvalid?: number;
}

/**
 * Runs the points not finished yet, at most `jobs` at a time, and records each result the moment it
 * is known. Returns the results of all given points that have one (earlier or new). A run that throws
 * a user error (an invalid value) stops the sweep, since every later point would fail the same way.
 */
export async function runPoints(
  points: readonly SweepPoint[],
  ctx: PointRunnerContext,
  progress: { done: number; total: number },
): Promise<SweepResult[]> {
  const known = new Map(ctx.folder.readResults().map((r) => [r.key, r]));
  const pending = points.filter((p) => {
    const r = known.get(pointKey(p));
    return !r || !isFinished(r) || retriesLeft(r, ctx.retryInvalid);
  });
  if (ctx.batch) {
    if (pending.length && !ctx.shouldStop()) await ctx.batch.run(pending, ctx, progress);
    const recorded = new Map(ctx.folder.readResults().map((r) => [r.key, r]));
    return points.flatMap((p) => recorded.get(pointKey(p)) ?? []);
  }
  const firstPath = ctx.folder.spec.mode.type === 'critical' ? ctx.folder.spec.mode.path : ctx.folder.spec.axes[0]?.path;
  const xOf = (p: Pick<SweepPoint, 'values'>) => (firstPath ? p.values[firstPath]?.value : undefined);
  const timedDone: TimedRun[] = [];
  const finishedKeys = new Set<string>();
  let fatal: unknown;
  let next = 0;

  const lane = async () => {
    while (next < pending.length && !ctx.shouldStop() && fatal === undefined) {
      const point = pending[next++];
      const key = pointKey(point);
      ctx.events.emit({ type: 'run-start', point });
      // a resumed sweep goes on with the attempts of a point its last run left invalid
      const prior = known.get(key);
      const earlier = prior?.status === 'invalid' ? [...(prior.earlier_runs ?? []), prior.runDir] : [];
      let result: SweepResult;
      for (let attempt = earlier.length + 1; ; attempt++) {
        const request = attemptRequest(requestFor(ctx.folder, point), attempt);
        try {
          const outcome = await ctx.runOne(request);
          result = resultFromSummary(point, key, outcome.summary, relative(ctx.folder.dir, outcome.runDir));
        } catch (err) {
          if (err instanceof CavsimError && err.code === 'USER_INPUT') {
            fatal ??= err;
            return;
          }
          result = failedResult(point, key, err, relative(ctx.folder.dir, `${ctx.folder.runsDir}/${request.runId}`));
        }
        if (earlier.length) result.earlier_runs = [...earlier];
        if (result.status !== 'invalid' || attempt > (ctx.retryInvalid ?? 0) || ctx.shouldStop()) break;
        ctx.folder.appendResult(result); // kept until the next attempt replaces it, should the sweep stop here
        earlier.push(result.runDir);
        ctx.events.emit({
          type: 'warn',
          message: `run ${point.id} is invalid: ${result.reason ?? 'the machine could not keep real time'}; running it again (attempt ${attempt + 1} of ${(ctx.retryInvalid ?? 0) + 1}, --retry-invalid)`,
        });
      }
      ctx.folder.appendResult(result);
      known.set(key, result);
      finishedKeys.add(key);
      timedDone.push({ x: xOf(point), wallSeconds: result.wall_time_s });
      progress.done++;
      progress.total = Math.max(progress.total, progress.done);
      if (result.status === 'invalid')
        ctx.events.emit({
          type: 'warn',
          message: `run ${point.id} is invalid: ${result.reason ?? 'the machine could not keep real time'}`,
        });
      if (result.status === 'failed')
        ctx.events.emit({ type: 'warn', message: `run ${point.id} failed: ${result.reason ?? 'no reason given'}` });
      // From the runs' own measured times, so a sweep whose runs grow (more cars) is not promised the pace of its first ones.
      const left = pending.filter((p) => !finishedKeys.has(pointKey(p))).map((p) => ({ x: xOf(p) }));
      const eta = progress.total - progress.done > 0 ? secondsLeft(timedDone, left, ctx.jobs) : 0;
      ctx.events.emit({ type: 'run-done', result, done: progress.done, total: progress.total, etaSeconds: eta });
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, Math.min(ctx.jobs, pending.length)) }, lane));
  if (fatal !== undefined) throw fatal;
  return points.flatMap((p) => known.get(pointKey(p)) ?? []);
}

/** An invalid point with fewer attempts than `--retry-invalid` allows: a resumed sweep runs it again. */
function retriesLeft(r: Pick<SweepResult, 'status' | 'earlier_runs'>, retryInvalid = 0): boolean {
  return r.status === 'invalid' && attemptsOf(r) <= retryInvalid;
}

/** A point's second and later attempts get run ids of their own, so every attempt's folder is kept. */
function attemptRequest(request: RunRequest, attempt: number): RunRequest {
  return attempt === 1 ? request : { ...request, runId: `${request.runId}-try${attempt}` };
}

/** How a point of this sweep is run: the scenario, its overrides, and where its run folder goes. */
export function requestFor(folder: SweepFolder, point: SweepPoint): RunRequest {
  return {
    runtime: folder.spec.runtime,
    scenarioFile: folder.spec.scenario,
    overrides: pointOverrides(point, folder.spec.fixed),
    runsDir: folder.runsDir,
    runId: runIdOf(folder, point),
  };
}

/**
 * The run id of a point. Emulated runs name containers, networks and interfaces after their run
 * id, so those ids must be unique on the host: they carry the sweep id. Simulated runs touch
 * nothing outside their folder and keep the short point id.
 */
export function runIdOf(folder: SweepFolder, point: SweepPoint): string {
  return folder.spec.runtime === 'docker' ? `${folder.spec.id}-${point.id}` : point.id;
}
