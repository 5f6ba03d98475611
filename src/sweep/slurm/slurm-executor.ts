import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastLines } from '../../util/last-lines.js';
import type { SweepPoint } from '../grid.js';
import { pointKey } from '../grid.js';
import { type BatchExecutor, type PointRunnerContext, requestFor } from '../run-points.js';
import type { SweepFolder } from '../sweep-folder.js';
import { chunkRuns, jobScript, type SlurmResources } from './job-script.js';
import { batchFile, nextBatch, readTaskResults, SLURM_DIR, type SlurmBatch, taskOutputFile } from './slurm-batch.js';
import type { SlurmPort } from './slurm-port.js';

export interface SlurmExecutorOptions {
  resources: SlurmResources;
  runsPerTask: number;
  /** The argv that runs cavsim on a node (node binary and CLI script). */
  cavsim: readonly string[];
  /** How often the queue and the task files are read [ms]. */
  pollMs?: number;
}

/** The batch of `points` as a job array: chunks of runs, each run's request fixed now. */
export function planBatch(folder: SweepFolder, points: readonly SweepPoint[], batch: number, runsPerTask: number): SlurmBatch {
  const runs = points.map((point) => ({
    point,
    key: pointKey(point),
    request: { ...requestFor(folder, point), scenarioFile: resolve(folder.spec.scenario), runsDir: resolve(folder.runsDir) },
  }));
  return { batch, tasks: chunkRuns(runs, runsPerTask).map((chunk) => ({ runs: chunk })) };
}

/** The script a batch would be submitted with (also what `--dry-run` prints). */
export function batchScript(folder: Pick<SweepFolder, 'dir' | 'spec'>, batch: SlurmBatch, opts: SlurmExecutorOptions): string {
  const dir = resolve(folder.dir);
  return jobScript({
    jobName: `cavsim-${folder.spec.id}`,
    tasks: batch.tasks.length,
    sweepDir: dir,
    batch: batch.batch,
    logDir: join(dir, SLURM_DIR),
    cavsim: opts.cavsim,
    resources: opts.resources,
  });
}

/**
 * Runs a sweep's pending points as a Slurm job array: writes the batch and its script into the
 * sweep folder, submits it, and while tasks are queued or running, moves every result a task has
 * written into the sweep's results (so progress, `--resume` and the tables work as for local runs).
 * A task that ends without all its results is reported with how Slurm says it ended; its runs stay
 * missing for a later `--resume` (with either executor). Stopping cancels the job.
 */
export class SlurmExecutor implements BatchExecutor {
  readonly where: string;

  constructor(
    private readonly slurm: SlurmPort,
    private readonly opts: SlurmExecutorOptions,
  ) {
    this.where = `Slurm job arrays (${opts.runsPerTask} runs per task, ${opts.resources.cpusPerTask} CPU, ${opts.resources.memory}, ${opts.resources.time}${opts.resources.partition ? `, partition ${opts.resources.partition}` : ''})`;
  }

  async run(points: readonly SweepPoint[], ctx: PointRunnerContext, progress: { done: number; total: number }): Promise<void> {
    const folder = ctx.folder;
    const dir = resolve(folder.dir);
    mkdirSync(join(dir, SLURM_DIR), { recursive: true });
    const batch = planBatch(folder, points, nextBatch(dir), this.opts.runsPerTask);
    writeFileSync(batchFile(dir, batch.batch), `${JSON.stringify(batch, null, 1)}\n`);
    const script = join(dir, SLURM_DIR, `batch-${batch.batch}.sh`);
    writeFileSync(script, batchScript(folder, batch, this.opts), { mode: 0o755 });
    const jobId = await this.slurm.submit(script);
    ctx.events.emit({
      type: 'warn',
      message: `submitted Slurm job ${jobId}: ${points.length} runs in ${batch.tasks.length} tasks (${script})`,
    });

    const seen = batch.tasks.map(() => 0);
    const started = ctx.now();
    let finishedHere = 0;
    const collect = () => {
      for (const [i, task] of batch.tasks.entries()) {
        const results = readTaskResults(dir, batch.batch, i);
        for (const result of results.slice(seen[i])) {
          folder.appendResult(result);
          finishedHere++;
          progress.done++;
          progress.total = Math.max(progress.total, progress.done);
          if (result.status === 'failed')
            ctx.events.emit({ type: 'warn', message: `run ${result.id} failed: ${result.reason ?? 'no reason given'}` });
          const perRun = (ctx.now() - started) / 1000 / finishedHere;
          ctx.events.emit({
            type: 'run-done',
            result,
            done: progress.done,
            total: progress.total,
            etaSeconds: perRun * Math.max(0, progress.total - progress.done),
          });
        }
        seen[i] = Math.max(seen[i], Math.min(results.length, task.runs.length));
      }
    };

    for (;;) {
      if (ctx.shouldStop()) {
        await this.slurm.cancel(jobId);
        collect();
        ctx.events.emit({ type: 'warn', message: `cancelled Slurm job ${jobId}; finished runs are kept, --resume runs the rest` });
        return;
      }
      const queued = await this.slurm.queued(jobId);
      collect();
      if (!queued.size) break;
      await sleep(this.opts.pollMs ?? 500);
    }
    // A task's last lines may land after the queue forgot it.
    collect();
    for (const [i, task] of batch.tasks.entries()) {
      if (seen[i] >= task.runs.length) continue;
      const end = await this.slurm.taskEnd(jobId, i);
      const out = taskOutputFile(dir, batch.batch, i);
      const tail = existsSync(out) ? lastLines(readFileSync(out, 'utf8'), 3).join(' | ') : '';
      const how = end ? `${end.state}${end.exitCode ? `, exit ${end.exitCode}` : ''}${end.reason ? `, ${end.reason}` : ''}` : 'ended';
      ctx.events.emit({
        type: 'warn',
        message: `Slurm task ${jobId}_${i} ${how} with ${task.runs.length - seen[i]} of its ${task.runs.length} runs not done${tail ? `: ${tail}` : ''}; \`cavsim sweep --resume ${folder.spec.id}\` runs them`,
      });
    }
  }
}
