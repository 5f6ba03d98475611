import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/run/summary.js';
import { sweepAnswer } from '../../../src/sweep/answer.js';
import type { SweepEvent } from '../../../src/sweep/events.js';
import { expandGrid, parseAxis } from '../../../src/sweep/grid.js';
import { calibrationFrom, measuredJobs, writeCalibration } from '../../../src/sweep/jobs-calibration.js';
import type { PlannedSweep } from '../../../src/sweep/plan-sweep.js';
import { resultFromSummary, type SweepResult } from '../../../src/sweep/result-row.js';
import { executeSweep, startSweep } from '../../../src/sweep/run-sweep.js';
import { chunkRuns, jobScript } from '../../../src/sweep/slurm/job-script.js';
import { readBatch, taskResultFile } from '../../../src/sweep/slurm/slurm-batch.js';
import { SlurmExecutor } from '../../../src/sweep/slurm/slurm-executor.js';
import type { SlurmPort } from '../../../src/sweep/slurm/slurm-port.js';
import { SweepFolder } from '../../../src/sweep/sweep-folder.js';
import { EventBus } from '../../../src/util/event-bus.js';

const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-slurm-unit-'));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function gridPlan(values = '10..100ms:10ms'): PlannedSweep {
  const axes = [parseAxis(`network.delay=${values}`)];
  return {
    scenario: '/nowhere/scenario.yaml',
    runtime: 'sim',
    fixed: [],
    axes,
    repeat: 1,
    baseSeed: 3,
    mode: { type: 'grid', points: expandGrid(axes, 1, 3) },
  };
}

/** What a task on a node would write: a completed run that collides above 55 ms. */
function taskLine(run: ReturnType<typeof readBatch>['tasks'][number]['runs'][number]): SweepResult {
  const delay = run.point.values['network.delay'].value!;
  const summary = {
    status: 'completed',
    seed: 3,
    sim_time_s: 5,
    wall_time_s: 0.01,
    min_ttc_s: 1,
    min_distance_m: 1,
    collision: delay > 55,
    first_collision_t_s: null,
    v2v: { sent: 1, received: 1, lost: 0, p50_ms: delay, p99_ms: delay },
  } as unknown as RunSummary;
  return resultFromSummary(run.point, run.key, summary, `runs/${run.request.runId}`);
}

/** A Slurm that "runs" every task of a submitted batch but the ones in `failing`, and remembers what it was asked. */
function fakeSlurm(sweepDir: () => string, failing: Set<number>) {
  const submitted: string[] = [];
  const cancelled: string[] = [];
  let polls = 0;
  const port: SlurmPort = {
    async submit(script) {
      submitted.push(script);
      const batch = readBatch(sweepDir(), Number(/batch-(\d+)\.sh$/.exec(script)![1]));
      batch.tasks.forEach((task, i) => {
        if (failing.has(i)) return;
        for (const run of task.runs) appendFileSync(taskResultFile(sweepDir(), batch.batch, i), `${JSON.stringify(taskLine(run))}\n`);
      });
      return String(100 + submitted.length);
    },
    async queued() {
      return ++polls % 3 === 0 ? new Map() : new Map([[0, 'RUNNING']]);
    },
    async taskEnd() {
      return { state: 'FAILED', exitCode: '1:0' };
    },
    async cancel(jobId) {
      cancelled.push(jobId);
    },
  };
  return { port, submitted, cancelled };
}

const noLocalRuns = () => Promise.reject(new Error('nothing runs locally'));

describe('Slurm job scripts', () => {
  it('asks for an array of one task per chunk with the resources given, and quotes what the shell would split', () => {
    const script = jobScript({
      jobName: 'cavsim-x',
      tasks: 6,
      sweepDir: '/data/my sweeps/x',
      batch: 2,
      logDir: '/data/my sweeps/x/slurm',
      cavsim: ['/usr/bin/node', '/opt/cavsim/dist/cli/main.js'],
      resources: { time: '30:00', memory: '2G', cpusPerTask: 1 },
    });
    expect(script.split('\n').slice(0, 7)).toEqual([
      '#!/bin/bash',
      '#SBATCH --job-name=cavsim-x',
      '#SBATCH --array=0-5',
      '#SBATCH --output=/data/my sweeps/x/slurm/batch-2-task-%a.out',
      '#SBATCH --time=30:00',
      '#SBATCH --mem=2G',
      '#SBATCH --cpus-per-task=1',
    ]);
    expect(script).not.toContain('--partition');
    expect(script).toContain(
      `exec /usr/bin/node /opt/cavsim/dist/cli/main.js sweep-task '/data/my sweeps/x' --batch 2 --task "$SLURM_ARRAY_TASK_ID"`,
    );
    expect(
      jobScript({
        jobName: 'j',
        tasks: 1,
        sweepDir: '/s',
        batch: 0,
        logDir: '/s',
        cavsim: ['c'],
        resources: { partition: 'gpu', time: '1:00', memory: '1G', cpusPerTask: 2 },
      }),
    ).toContain('#SBATCH --partition=gpu');
  });

  it('splits runs into even chunks of at most the size asked', () => {
    const chunks = chunkRuns(
      Array.from({ length: 44 }, (_, i) => i),
      8,
    );
    expect(chunks.map((c) => c.length)).toEqual([8, 8, 7, 7, 7, 7]);
    expect(chunks.flat()).toEqual(Array.from({ length: 44 }, (_, i) => i));
    expect(chunkRuns([], 8)).toEqual([]);
  });
});

describe('the Slurm executor', () => {
  it('records every result the tasks wrote, names a task that ended without its runs, and --resume submits only those', async () => {
    const sweeps = tmp();
    let dir = '';
    const first = fakeSlurm(() => dir, new Set([1]));
    const events: SweepEvent[] = [];
    const bus = new EventBus<SweepEvent>();
    bus.on((e) => events.push(e));
    const plan = gridPlan();
    dir = join(sweeps, 'sw');
    const out = await startSweep(
      plan,
      sweeps,
      {
        runOne: noLocalRuns,
        batch: new SlurmExecutor(first.port, {
          resources: { time: '1:00', memory: '1G', cpusPerTask: 1 },
          runsPerTask: 4,
          cavsim: ['cavsim'],
          pollMs: 1,
        }),
        jobs: 8,
        events: bus,
      },
      'sw',
    );
    expect(readBatch(dir, 0).tasks.map((t) => t.runs.length)).toEqual([4, 3, 3]);
    expect(out.results).toHaveLength(7);
    const warnings = events.flatMap((e) => (e.type === 'warn' ? [e.message] : []));
    expect(warnings).toContainEqual(expect.stringMatching(/^submitted Slurm job 101: 10 runs in 3 tasks/));
    expect(warnings).toContainEqual(
      expect.stringMatching(/^Slurm task 101_1 FAILED, exit 1:0 with 3 of its 3 runs not done; `cavsim sweep --resume sw` runs them$/),
    );

    const second = fakeSlurm(() => dir, new Set());
    const resumed = await executeSweep(SweepFolder.open(sweeps, 'sw'), {
      runOne: noLocalRuns,
      batch: new SlurmExecutor(second.port, {
        resources: { time: '1:00', memory: '1G', cpusPerTask: 1 },
        runsPerTask: 4,
        cavsim: ['cavsim'],
        pollMs: 1,
      }),
      jobs: 8,
    });
    expect(second.submitted).toEqual([join(dir, 'slurm', 'batch-1.sh')]);
    expect(readBatch(dir, 1).tasks.flatMap((t) => t.runs.map((r) => r.point.id))).toEqual(
      readBatch(dir, 0).tasks[1].runs.map((r) => r.point.id),
    );
    expect(resumed.results).toHaveLength(10);
    expect(resumed.answer.text).toBe('no collision up to 50ms, collisions from 60ms (network.delay)');
    expect(readFileSync(join(dir, 'answer.json'), 'utf8')).toContain('collisions from 60ms');
  });

  it('cancels the job when the sweep is stopped', async () => {
    const sweeps = tmp();
    const dir = join(sweeps, 'st');
    const slurm = fakeSlurm(() => dir, new Set());
    await startSweep(
      gridPlan(),
      sweeps,
      {
        runOne: noLocalRuns,
        batch: new SlurmExecutor(slurm.port, {
          resources: { time: '1:00', memory: '1G', cpusPerTask: 1 },
          runsPerTask: 4,
          cavsim: ['cavsim'],
          pollMs: 1,
        }),
        jobs: 8,
        shouldStop: () => slurm.submitted.length > 0,
      },
      'st',
    );
    expect(slurm.cancelled).toEqual(['101']);
  });
});

describe('the sweep answer', () => {
  const plan = gridPlan();
  const results = (collideFrom: number, statuses: Record<number, string> = {}): SweepResult[] =>
    plan.mode.type === 'grid'
      ? plan.mode.points.map((p) => {
          const delay = p.values['network.delay'].value!;
          const summary = {
            status: statuses[delay] ?? 'completed',
            seed: 3,
            sim_time_s: 5,
            wall_time_s: 0,
            min_ttc_s: 1,
            min_distance_m: 1,
            collision: delay >= collideFrom,
            first_collision_t_s: null,
            v2v: { sent: 0, received: 0, lost: 0, p50_ms: null, p99_ms: null },
          } as unknown as RunSummary;
          return resultFromSummary(p, p.id, summary, 'runs/x');
        })
      : [];
  const spec = { ...plan, schema: 'cavsim.sweep/1' as const, id: 'a', created: '' };

  it('says where the outcome flips for one field, and counts failed and invalid runs apart', () => {
    expect(sweepAnswer(spec, results(60))).toMatchObject({
      text: 'no collision up to 50ms, collisions from 60ms (network.delay)',
      last_safe: '50ms',
      first_collision: '60ms',
      collision_points: 5,
      points: 10,
    });
    expect(sweepAnswer(spec, results(60)).narrow).toEqual({ path: 'network.delay', range: '50ms..60ms', tolerance: '1ms' });
    // a delay acts at whole 10 ms control ticks: 50ms..60ms is one tick, no search can split it
    const ticks = (resolution: number) => ({ ...spec, mode: { ...spec.mode, resolution } as typeof spec.mode });
    expect(sweepAnswer(ticks(10), results(60)).narrow).toBeUndefined();
    expect(sweepAnswer(ticks(5), results(60)).narrow).toEqual({ path: 'network.delay', range: '50ms..60ms', tolerance: '5ms' });
    expect(sweepAnswer(spec, results(1000)).text).toBe('no collision at any of the 10 points, 10ms to 100ms');
    expect(sweepAnswer(spec, results(1000)).narrow).toBeUndefined();
    expect(sweepAnswer(spec, results(0)).text).toBe('collisions at every point, from 10ms (network.delay)');
    expect(sweepAnswer(spec, results(60, { 20: 'failed', 30: 'invalid' })).text).toBe(
      'no collision up to 50ms, collisions from 60ms (network.delay) (1 run failed, 1 invalid (not counted))',
    );
  });

  it('lists the colliding points when the outcome does not flip once', () => {
    const mixed = results(60).map((r) => (r.values['network.delay'].value === 80 ? { ...r, collision: false } : r));
    expect(sweepAnswer(spec, mixed).text).toBe('collisions at 4 of 10 points: 60ms; 70ms; 90ms; 100ms');
  });
});

describe('jobs measured on this machine', () => {
  it('keeps all cores only when they pay, and is read back for the same core count only', () => {
    expect(calibrationFrom(2, 50, 60).bestJobs).toBe(2);
    expect(calibrationFrom(2, 50, 55).bestJobs).toBe(1);
    const file = join(tmp(), 'sweep-jobs.json');
    expect(measuredJobs(2, file)).toBeUndefined();
    writeCalibration(calibrationFrom(2, 50, 55), file);
    expect(measuredJobs(2, file)).toBe(1);
    expect(measuredJobs(8, file)).toBeUndefined();
    writeFileSync(file, '{not json');
    expect(measuredJobs(2, file)).toBeUndefined();
  });
});
