import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { runScenarioSimulated } from '../../api/run-simulated.js';
import { LockstepProcessPool } from '../../channel/ns3/lockstep/process-pool.js';
import { cachingMapLoader } from '../../core/map/map-loader.js';
import { UserInputError } from '../../errors.js';
import { cachingInputs } from '../../scenario/input-cache.js';
import { failedResult, resultFromSummary } from '../result-row.js';
import { readBatch, taskResultFile } from './slurm-batch.js';

/**
 * `cavsim sweep-task DIR --batch B --task I`, what a Slurm array task runs on a node: the runs of
 * chunk I of batch B, one after another in virtual time, each result appended to its task file the
 * moment it is known (the submitting `cavsim sweep` reads those files as they grow).
 */
export async function runSweepTask(sweepDir: string, batch: number, task: number, log: (line: string) => void = () => {}): Promise<number> {
  const spec = readBatch(sweepDir, batch);
  const chunk = spec.tasks[task];
  if (!chunk) throw new UserInputError(`batch ${batch} of ${sweepDir} has no task ${task}`, [`tasks: 0..${spec.tasks.length - 1}`]);
  const out = taskResultFile(sweepDir, batch, task);
  const loadMap = cachingMapLoader();
  const inputs = cachingInputs();
  using lockstepPool = new LockstepProcessPool();
  let failed = 0;
  for (const { point, key, request } of chunk.runs) {
    if (request.runtime !== 'sim')
      throw new UserInputError(`run ${point.id}: a Slurm task runs the simulated runtime only, not ${request.runtime}`);
    let line;
    try {
      const outcome = await runScenarioSimulated(request.scenarioFile, {
        overrides: request.overrides,
        runsDir: request.runsDir,
        runId: request.runId,
        loadMap,
        inputs,
        lockstepPool,
        mcapByDefault: false,
      });
      line = resultFromSummary(point, key, outcome.summary, relative(sweepDir, outcome.runDir));
    } catch (err) {
      line = failedResult(point, key, err, relative(sweepDir, `${request.runsDir}/${request.runId}`));
    }
    if (line.status === 'failed') failed++;
    appendFileSync(out, `${JSON.stringify(line)}\n`);
    log(`run ${point.id}: ${line.status}${line.reason ? ` (${line.reason})` : ''}`);
  }
  log(`task ${task} of batch ${batch}: ${chunk.runs.length} runs, ${failed} failed`);
  return 0;
}
