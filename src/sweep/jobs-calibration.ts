import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defaultCacheDir } from '../channel/ns3/compile.js';

/** What `npm run bench -- sweep` measured on this machine: whether running simulated runs in parallel pays. */
export interface JobsCalibration {
  cores: number;
  /** Runs at once that gave the most runs per second. */
  bestJobs: number;
  /** Runs per second at 1 job and at `cores` jobs. */
  serialRunsPerSecond: number;
  parallelRunsPerSecond: number;
  measuredAt: string;
}

export const calibrationFile = (env = process.env) => join(defaultCacheDir(env), 'sweep-jobs.json');

/** A parallel lane set must beat one lane by this much to be the default: below it, threads only cost memory. */
const WORTH_IT = 1.15;

export function calibrationFrom(cores: number, serial: number, parallel: number): JobsCalibration {
  return {
    cores,
    bestJobs: parallel >= serial * WORTH_IT ? cores : 1,
    serialRunsPerSecond: +serial.toFixed(2),
    parallelRunsPerSecond: +parallel.toFixed(2),
    measuredAt: new Date().toISOString(),
  };
}

export function writeCalibration(c: JobsCalibration, file = calibrationFile()): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(c, null, 2)}\n`);
}

/** The measured best job count for this machine's core count, if a bench measured one here. */
export function measuredJobs(cores: number, file = calibrationFile()): number | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Partial<JobsCalibration>;
    return c.cores === cores && Number.isInteger(c.bestJobs) && c.bestJobs! >= 1 ? c.bestJobs : undefined;
  } catch {
    return undefined;
  }
}
