import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SweepPoint } from '../grid.js';
import type { SweepResult } from '../result-row.js';
import type { RunRequest } from '../run-points.js';

/** One submission of runs to Slurm, as written in `<sweep>/slurm/batch-<n>.json` for its tasks to read. */
export interface SlurmBatch {
  batch: number;
  tasks: { runs: { point: SweepPoint; key: string; request: RunRequest }[] }[];
}

export const SLURM_DIR = 'slurm';
export const batchFile = (sweepDir: string, batch: number) => join(sweepDir, SLURM_DIR, `batch-${batch}.json`);
export const taskResultFile = (sweepDir: string, batch: number, task: number) =>
  join(sweepDir, SLURM_DIR, `batch-${batch}-task-${task}.jsonl`);
export const taskOutputFile = (sweepDir: string, batch: number, task: number) =>
  join(sweepDir, SLURM_DIR, `batch-${batch}-task-${task}.out`);

/** The next batch number: batches of earlier submissions (and of other --resume calls) are kept. */
export function nextBatch(sweepDir: string): number {
  const dir = join(sweepDir, SLURM_DIR);
  if (!existsSync(dir)) return 0;
  const used = readdirSync(dir).flatMap((f) => {
    const m = /^batch-(\d+)\.json$/.exec(f);
    return m ? [Number(m[1])] : [];
  });
  return used.length ? Math.max(...used) + 1 : 0;
}

export function readBatch(sweepDir: string, batch: number): SlurmBatch {
  return JSON.parse(readFileSync(batchFile(sweepDir, batch), 'utf8')) as SlurmBatch;
}

/** The results a task has written so far; a line cut short by a task that died mid-write is ignored. */
export function readTaskResults(sweepDir: string, batch: number, task: number): SweepResult[] {
  const file = taskResultFile(sweepDir, batch, task);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      if (!line.trim()) return [];
      try {
        return [JSON.parse(line) as SweepResult];
      } catch {
        return [];
      }
    });
}
