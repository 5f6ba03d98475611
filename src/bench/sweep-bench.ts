import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { planSweep } from '../sweep/plan-sweep.js';
import { openRunLanes } from '../sweep/run-one.js';
import { startSweep } from '../sweep/run-sweep.js';
import { SweepFolder } from '../sweep/sweep-folder.js';
import { writeSweepReport } from '../report/report.js';
import type { BenchRow, BenchSuite } from './main.js';

const SCENARIO = resolve(import.meta.dirname, '../../scenarios/head-on-brake.yaml');
const SUITE = 'sweep';

/** Runs per second of a simulated delay sweep of the head-on scenario, files included, figures excluded. */
async function sweepThroughput(jobs: number, delays: string): Promise<{ runsPerSecond: number; dir: string; sweepsDir: string; where: string }> {
  const sweepsDir = mkdtempSync(join(tmpdir(), 'cavsim-sweep-bench-'));
  const plan = await planSweep({ scenario: SCENARIO, sets: [`network.delay=${delays}`], repeat: 1, runtime: 'sim' });
  const lanes = await openRunLanes('sim', jobs, () => false);
  try {
    const started = performance.now();
    const out = await startSweep(plan, sweepsDir, { runOne: lanes.runOne, jobs: lanes.jobs });
    const seconds = (performance.now() - started) / 1000;
    if (out.results.some((r) => r.status !== 'completed')) throw new Error('a bench run did not complete');
    return { runsPerSecond: out.results.length / seconds, dir: out.dir, sweepsDir, where: lanes.where };
  } finally {
    await lanes.close();
  }
}

export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const rows: BenchRow[] = [];
    const warm = await sweepThroughput(1, '10..50ms:10ms');
    rmSync(warm.sweepsDir, { recursive: true, force: true });
    const serial = await sweepThroughput(1, '10..300ms:10ms');
    rows.push({ suite: SUITE, name: 'head-on delay sweep, 30 runs, 1 job (runs/s)', value: serial.runsPerSecond, unit: 'runs/s', note: serial.where });
    const cores = availableParallelism();
    const parallel = await sweepThroughput(cores, '10..300ms:10ms');
    rows.push({ suite: SUITE, name: `head-on delay sweep, 30 runs, ${cores} jobs (runs/s)`, value: parallel.runsPerSecond, unit: 'runs/s', note: parallel.where });
    rows.push({ suite: SUITE, name: `speed-up of ${cores} jobs over 1`, value: parallel.runsPerSecond / serial.runsPerSecond, unit: 'x' });
    const started = performance.now();
    await writeSweepReport(SweepFolder.open(parallel.sweepsDir, parallel.dir));
    rows.push({ suite: SUITE, name: 'figures and tables of that sweep (s)', value: (performance.now() - started) / 1000, unit: 's' });
    for (const r of [serial, parallel]) rmSync(r.sweepsDir, { recursive: true, force: true });
    return rows;
  },
};
