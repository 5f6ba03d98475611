import { parentPort } from 'node:worker_threads';
import { runScenarioSimulated } from '../api/run-simulated.js';
import { LockstepProcessPool } from '../channel/ns3/lockstep/process-pool.js';
import { cachingMapLoader } from '../core/map/map-loader.js';
import { CavsimError } from '../errors.js';
import { cachingInputs } from '../scenario/input-cache.js';
import type { RunRequest } from './run-points.js';
import { type CLOSE_POOL, POOL_CLOSED } from './sim-worker-pool.js';

const loadMap = cachingMapLoader();
const inputs = cachingInputs();
/** This worker's serving ns-3 processes: one start per worker, not per run; ended with the worker. */
const lockstepPool = new LockstepProcessPool();
parentPort?.once('close', () => lockstepPool.close());

/** A worker thread of the sweep's pool: runs one simulated scenario per message; `close` ends its ns-3 processes and says so. */
parentPort?.on('message', async (msg: { seq: number; request: RunRequest } | typeof CLOSE_POOL) => {
  if ('close' in msg) {
    await lockstepPool.close();
    parentPort!.postMessage(POOL_CLOSED);
    return;
  }
  try {
    const { request } = msg;
    const outcome = await runScenarioSimulated(request.scenarioFile, {
      overrides: request.overrides,
      runsDir: request.runsDir,
      runId: request.runId,
      loadMap,
      inputs,
      lockstepPool,
      mcapByDefault: false,
    });
    parentPort!.postMessage({ seq: msg.seq, ok: true, outcome });
  } catch (err) {
    const error =
      err instanceof CavsimError
        ? { code: err.code, message: err.message, hint: err.hint, details: err.details }
        : { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err), details: [] };
    parentPort!.postMessage({ seq: msg.seq, ok: false, error });
  }
});
