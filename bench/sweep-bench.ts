import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCommandRunner } from '../src/host/exec/command-runner.js';
import { calibrationFile, calibrationFrom, writeCalibration } from '../src/sweep/jobs-calibration.js';
import { planSweep } from '../src/sweep/plan-sweep.js';
import { openRunLanes } from '../src/sweep/run-one.js';
import { startSweep } from '../src/sweep/run-sweep.js';
import { SlurmExecutor } from '../src/sweep/slurm/slurm-executor.js';
import { slurmCommands } from '../src/sweep/slurm/slurm-port.js';
import { SweepFolder } from '../src/sweep/sweep-folder.js';
import { writeSweepReport } from '../src/ui/report/report.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';

const CLI = join(packageRoot(), 'dist/cli/main.js');

const SCENARIO = join(packageRoot(), 'scenarios/head-on-brake.yaml');
const SUITE = 'sweep';

const MEASURED_DELAYS = '10..300ms:2ms';
const MEASURED_RUNS = 146;

/**
 * Runs per second of a simulated delay sweep of the head-on scenario, files included, figures
 * excluded. Each lane set first runs a short warm-up sweep, so worker threads are loaded and
 * compiled like the main thread is, and the comparison is of steady throughput.
 */
async function sweepThroughput(jobs: number): Promise<{ runsPerSecond: number; dir: string; sweepsDir: string; where: string }> {
  const sweepsDir = mkdtempSync(join(tmpdir(), 'cavsim-sweep-bench-'));
  const lanes = await openRunLanes('sim', jobs, () => false);
  try {
    // Lanes in one thread would be measured as "jobs" and calibrate every later sweep's default.
    if (jobs > 1 && lanes.jobs !== jobs)
      throw new Error(
        `${jobs} jobs ran ${lanes.where}: the sweep's worker (sim-worker.js) is not compiled next to the bench; bench/tsconfig.json must include it`,
      );
    const warmUp = await planSweep({ scenario: SCENARIO, sets: [`network.delay=10..${10 * 4 * jobs}ms:10ms`], repeat: 1, runtime: 'sim' });
    await startSweep(warmUp, sweepsDir, { runOne: lanes.runOne, jobs: lanes.jobs });
    const plan = await planSweep({ scenario: SCENARIO, sets: [`network.delay=${MEASURED_DELAYS}`], repeat: 1, runtime: 'sim' });
    const started = performance.now();
    const out = await startSweep(plan, sweepsDir, { runOne: lanes.runOne, jobs: lanes.jobs });
    const seconds = (performance.now() - started) / 1000;
    if (out.results.length !== MEASURED_RUNS || out.results.some((r) => r.status !== 'completed'))
      throw new Error('a bench run did not complete');
    return { runsPerSecond: out.results.length / seconds, dir: out.dir, sweepsDir, where: lanes.where };
  } finally {
    await lanes.close();
  }
}

/** The same sweep as a Slurm job array (tasks of 20 runs, 1 CPU each), when `sbatch` answers here. */
async function slurmThroughput(): Promise<BenchRow> {
  const name = `head-on delay sweep, ${MEASURED_RUNS} runs, Slurm job array, 1 CPU per task (runs/s)`;
  const runner = createCommandRunner();
  const probe = await runner.run(['sbatch', '--version'], { allowFailure: true }).catch(() => ({ exitCode: -1 }));
  if (probe.exitCode !== 0)
    return {
      suite: SUITE,
      name,
      value: NaN,
      unit: 'runs/s',
      note: 'skipped: no Slurm here (sudo bash scripts/local-slurm.sh start; export SLURM_CONF=...)',
    };
  const sweepsDir = mkdtempSync(join(tmpdir(), 'cavsim-sweep-bench-slurm-'));
  try {
    const batch = new SlurmExecutor(slurmCommands(runner), {
      resources: { time: '10:00', memory: '1G', cpusPerTask: 1 },
      runsPerTask: 20,
      cavsim: [process.execPath, CLI],
      pollMs: 200,
    });
    const plan = await planSweep({ scenario: SCENARIO, sets: [`network.delay=${MEASURED_DELAYS}`], repeat: 1, runtime: 'sim' });
    const started = performance.now();
    const out = await startSweep(plan, sweepsDir, { runOne: () => Promise.reject(new Error('not local')), batch, jobs: 8 });
    const seconds = (performance.now() - started) / 1000;
    if (out.results.length !== MEASURED_RUNS) throw new Error('a Slurm bench run is missing');
    const cpus = (await runner.run(['sinfo', '-h', '-o', '%C'], { allowFailure: true })).stdout.trim();
    return {
      suite: SUITE,
      name,
      value: out.results.length / seconds,
      unit: 'runs/s',
      note: `${Math.ceil(MEASURED_RUNS / 20)} tasks, submission and polling included; cluster CPUs (allocated/idle/other/total) ${cpus}`,
    };
  } finally {
    rmSync(sweepsDir, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const rows: BenchRow[] = [];
    const cores = availableParallelism();
    const serial = await sweepThroughput(1);
    rows.push({
      suite: SUITE,
      name: `head-on delay sweep, ${MEASURED_RUNS} runs, 1 job (runs/s)`,
      value: serial.runsPerSecond,
      unit: 'runs/s',
      note: serial.where,
    });
    const parallel = await sweepThroughput(cores);
    rows.push({
      suite: SUITE,
      name: `head-on delay sweep, ${MEASURED_RUNS} runs, ${cores} jobs (runs/s)`,
      value: parallel.runsPerSecond,
      unit: 'runs/s',
      note: parallel.where,
    });
    rows.push({ suite: SUITE, name: `speed-up of ${cores} jobs over 1`, value: parallel.runsPerSecond / serial.runsPerSecond, unit: 'x' });
    const calibration = calibrationFrom(cores, serial.runsPerSecond, parallel.runsPerSecond);
    writeCalibration(calibration);
    rows.push({
      suite: SUITE,
      name: 'default jobs from now on (sim sweeps on this machine)',
      value: calibration.bestJobs,
      unit: 'jobs',
      note: calibrationFile(),
    });
    rows.push(await slurmThroughput());
    const started = performance.now();
    await writeSweepReport(SweepFolder.open(parallel.sweepsDir, parallel.dir));
    rows.push({ suite: SUITE, name: 'figures and tables of that sweep (s)', value: (performance.now() - started) / 1000, unit: 's' });
    for (const r of [serial, parallel]) rmSync(r.sweepsDir, { recursive: true, force: true });
    return rows;
  },
};
