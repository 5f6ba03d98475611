import { shellQuote } from '../../util/shell-quote.js';

/** What a Slurm job array of sweep runs asks the cluster for. */
export interface SlurmResources {
  /** Partition; the cluster's default when undefined. */
  partition?: string;
  /** Wall-time limit per task, Slurm's syntax (`30:00`, `1-00:00:00`). */
  time: string;
  /** Memory per task, Slurm's syntax (`2G`). */
  memory: string;
  cpusPerTask: number;
}

export const SLURM_DEFAULTS: SlurmResources & { runsPerTask: number } = { time: '30:00', memory: '2G', cpusPerTask: 1, runsPerTask: 10 };

/** Slurm's partition names: letters, digits, '_', '-', '.'; several joined by ','. */
const PARTITION = /^[A-Za-z0-9_.-]{1,64}(,[A-Za-z0-9_.-]{1,64})*$/;
/** Slurm's time limits: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]]. */
const TIME_LIMIT = /^(\d{1,5}(:\d{1,2}){0,2}|\d{1,4}-\d{1,2}(:\d{1,2}){0,2})$/;
/** Slurm's memory sizes: a whole number with an optional K, M, G or T. */
const MEMORY = /^[1-9]\d{0,9}[KMGT]?$/i;

/**
 * Problems with the resources a sweep asks Slurm for, each naming the flag and the fix. Every value
 * lands in the job script: one that is not what Slurm accepts (a line break, a shell word) is refused
 * here rather than run on a node.
 */
export function slurmResourceProblems(r: SlurmResources): string[] {
  return [
    ...(r.partition !== undefined && !PARTITION.test(r.partition)
      ? [`--partition: ${JSON.stringify(r.partition)} is not a partition name (letters, digits, '_', '-', '.'; several joined by ',')`]
      : []),
    ...(!TIME_LIMIT.test(r.time) || !/[1-9]/.test(r.time)
      ? [`--time: ${JSON.stringify(r.time)} is not a Slurm time limit (e.g. 30 minutes as 30:00, 2 hours as 2:00:00, a day as 1-00:00:00)`]
      : []),
    ...(!MEMORY.test(r.memory)
      ? [`--mem: ${JSON.stringify(r.memory)} is not a memory size (a whole number with K, M, G or T, e.g. 2G)`]
      : []),
  ];
}

/**
 * The sbatch script of one batch of sweep runs: an array with one task per chunk of runs; each task
 * runs `cavsim sweep-task` for its chunk on the node, writing one result line per run as it goes.
 * Output of task i goes to `<logDir>/batch-<b>-task-<i>.out`.
 */
export function jobScript(p: {
  jobName: string;
  tasks: number;
  sweepDir: string;
  batch: number;
  logDir: string;
  cavsim: readonly string[];
  resources: SlurmResources;
}): string {
  const r = p.resources;
  const problems = [
    ...slurmResourceProblems(r),
    ...(/[\n\r]/.test(p.logDir + p.jobName) ? ['the sweep folder and job name must not hold a line break'] : []),
  ];
  if (problems.length) throw new Error(`refusing to write a job script: ${problems.join('; ')}`);
  const lines = [
    '#!/bin/bash',
    `#SBATCH --job-name=${p.jobName}`,
    `#SBATCH --array=0-${p.tasks - 1}`,
    `#SBATCH --output=${p.logDir}/batch-${p.batch}-task-%a.out`,
    `#SBATCH --time=${r.time}`,
    `#SBATCH --mem=${r.memory}`,
    `#SBATCH --cpus-per-task=${r.cpusPerTask}`,
    ...(r.partition ? [`#SBATCH --partition=${r.partition}`] : []),
    '# Written by `cavsim sweep --executor slurm`: each task runs its chunk of the sweep (simulated runtime).',
    'set -euo pipefail',
    `exec ${[...p.cavsim, 'sweep-task', p.sweepDir, '--batch', String(p.batch), '--task'].map(shellQuote).join(' ')} "$SLURM_ARRAY_TASK_ID"`,
    '',
  ];
  return lines.join('\n');
}

/** Splits `n` runs into chunks of at most `perTask`, as evenly as the count allows. */
export function chunkRuns<T>(runs: readonly T[], perTask: number): T[][] {
  if (!runs.length) return [];
  const tasks = Math.ceil(runs.length / perTask);
  const base = Math.floor(runs.length / tasks);
  const larger = runs.length % tasks;
  const chunks: T[][] = [];
  let at = 0;
  for (let i = 0; i < tasks; i++) {
    const size = base + (i < larger ? 1 : 0);
    chunks.push(runs.slice(at, at + size));
    at += size;
  }
  return chunks;
}
