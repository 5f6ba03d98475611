import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type RunOutcome, runScenarioSimulated } from '../api/run-simulated.js';
import { LockstepProcessPool } from '../channel/ns3/lockstep/process-pool.js';
import { cachingMapLoader } from '../core/map/map-loader.js';
import { EnvironmentError } from '../errors.js';
import { cachingInputs } from '../scenario/input-cache.js';
import { measuredJobs } from './jobs-calibration.js';
import type { RunOne, RunRequest } from './run-points.js';
import { startSimWorkerPool } from './sim-worker-pool.js';
import type { Runtime } from './sweep-folder.js';

type RunScenarioEmulated = (
  file: string,
  opts: { overrides?: readonly string[]; runsDir?: string; runId?: string; shouldStop?: () => boolean },
) => Promise<RunOutcome>;

/** Kept in a variable so the sweep builds whether or not the emulated runtime is part of this build. */
const EMULATED_MODULE = '../api/run-emulated.js';

async function loadEmulated(): Promise<RunScenarioEmulated> {
  let mod: { runScenarioEmulated?: RunScenarioEmulated };
  try {
    mod = await import(EMULATED_MODULE);
  } catch (err) {
    const detail = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new EnvironmentError(
      `the emulated (docker) runtime cannot be loaded: ${detail}`,
      'run the sweep with --runtime sim, or rebuild cavsim (npm run build)',
    );
  }
  if (typeof mod.runScenarioEmulated !== 'function') {
    throw new EnvironmentError('the emulated (docker) runtime module has no runScenarioEmulated', 'run the sweep with --runtime sim');
  }
  return mod.runScenarioEmulated;
}

/**
 * Runs in this process, one at a time per call; the docker runtime and tests use it. Its simulated
 * runs share `lockstepPool`, which the caller owns.
 */
export function inProcessRunOne(shouldStop: () => boolean = () => false, lockstepPool?: LockstepProcessPool): RunOne {
  let emulated: Promise<RunScenarioEmulated> | undefined;
  const loadMap = cachingMapLoader();
  const inputs = cachingInputs();
  return async (req: RunRequest) => {
    const opts = { overrides: req.overrides, runsDir: req.runsDir, runId: req.runId, shouldStop, mcapByDefault: false };
    if (req.runtime === 'sim')
      return runScenarioSimulated(req.scenarioFile, { ...opts, loadMap, inputs, ...(lockstepPool ? { lockstepPool } : {}) });
    emulated ??= loadEmulated();
    return (await emulated)(req.scenarioFile, opts);
  };
}

/**
 * Simulated runs at once by default: what `npm run bench -- sweep` measured pays best on this
 * machine (~/.cache/cavsim/sweep-jobs.json); unmeasured, one per core from three cores up, and one
 * on two cores, where two worker threads measured slower than one lane (60 platoon runs: 5.52 s
 * with two, 4.41 s with one; 1.0 to 1.3x in whole sweeps, docs/sweep.md). Emulated runs: one.
 */
export const defaultJobs = (runtime: Runtime, cores = availableParallelism(), measured = measuredJobs(cores)) =>
  runtime === 'sim' ? (measured ?? (cores > 2 ? cores : 1)) : 1;

/**
 * Runs at once: what was asked (else the runtime's default), at most one per core (more only
 * slow every run down and cost memory) and never more than the runs planned (undefined: not known
 * ahead, as in a critical search). The note says why fewer than asked.
 */
export function chooseJobs(opts: { requested?: number; runtime: Runtime; cores: number; runs?: number }): { jobs: number; note?: string } {
  const asked = opts.requested ?? defaultJobs(opts.runtime, opts.cores);
  const jobs = Math.max(1, Math.min(asked, opts.cores, opts.runs ?? Infinity));
  const note =
    opts.requested !== undefined && opts.requested > opts.cores
      ? `--jobs ${opts.requested}: this machine has ${opts.cores} cores; running at most ${opts.cores} at once`
      : undefined;
  return note ? { jobs, note } : { jobs };
}

/** The compiled worker; absent when running from TypeScript sources (tests), where runs stay in-process. */
const WORKER_FILE = fileURLToPath(new URL('./sim-worker.js', import.meta.url));

export interface RunLanes {
  runOne: RunOne;
  /** How many runs can go at once. */
  jobs: number;
  /** Where runs go: 'worker threads' or 'in process'. */
  where: string;
  /** Ends the worker threads; harmless to call twice. */
  close(): Promise<void>;
}

/**
 * Lanes for a sweep: simulated runs with jobs > 1 go to a pool of worker threads running the
 * compiled code (one run per thread at a time); everything else runs in this process.
 * Close to end the threads.
 */
export async function openRunLanes(runtime: Runtime, jobs: number, shouldStop: () => boolean): Promise<RunLanes> {
  if (runtime === 'sim' && jobs > 1 && existsSync(WORKER_FILE)) {
    const pool = startSimWorkerPool(WORKER_FILE, jobs);
    return { runOne: pool.run, jobs, where: `${jobs} worker threads`, close: () => pool.close() };
  }
  const effective = runtime === 'sim' ? 1 : jobs;
  const lockstepPool = new LockstepProcessPool();
  return {
    runOne: inProcessRunOne(shouldStop, lockstepPool),
    jobs: effective,
    where: 'in process',
    close: async () => lockstepPool.close(),
  };
}
