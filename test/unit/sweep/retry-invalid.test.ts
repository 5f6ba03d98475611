import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/run/summary.js';
import type { SweepEvent } from '../../../src/sweep/events.js';
import { expandGrid, parseAxis } from '../../../src/sweep/grid.js';
import type { PlannedSweep } from '../../../src/sweep/plan-sweep.js';
import type { RunOne, RunRequest } from '../../../src/sweep/run-points.js';
import { resumeSweep, startSweep } from '../../../src/sweep/run-sweep.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-sweep-retry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plan(): PlannedSweep {
  const axes = [parseAxis('network.delay=10,20,30ms')];
  return {
    scenario: '/nowhere/scenario.yaml',
    runtime: 'docker',
    fixed: [],
    axes,
    repeat: 1,
    baseSeed: 7,
    mode: { type: 'grid', points: expandGrid(axes, 1, 7) },
  };
}

/** Emulated runs that end `invalid` for lateness while `late(req)` says so, else `completed`. */
function lateRuns(late: (req: RunRequest) => boolean) {
  const calls: string[] = [];
  const runOne: RunOne = async (req) => {
    calls.push(req.runId);
    const runDir = join(req.runsDir, req.runId);
    mkdirSync(runDir, { recursive: true });
    const invalid = late(req);
    const summary = {
      schema: 'cavsim.summary/1',
      run_id: req.runId,
      status: invalid ? 'invalid' : 'completed',
      ...(invalid ? { reason: '40 of 1000 drive commands (4.0 %) arrived too late for the next physics step' } : {}),
      seed: 7,
      sim_time_s: 5,
      wall_time_s: 5.1,
      min_ttc_s: 0.5,
      min_distance_m: 3.1,
      collision: false,
      first_collision_t_s: null,
      v2v: { sent: 1, received: 1, lost: 0, p50_ms: 10, p99_ms: 10, max_ms: 10, mean_ms: 10 },
    } as unknown as RunSummary;
    return { summary, runDir };
  };
  return { runOne, calls };
}

const events = (into: SweepEvent[]) => ({ emit: (e: SweepEvent) => into.push(e) }) as never;

describe('--retry-invalid: an emulated point whose run ends invalid is run again', () => {
  it('runs it again under a run id of its own, keeps every attempt, and counts the valid one', async () => {
    const seen: SweepEvent[] = [];
    const runs = lateRuns((req) => req.runId.endsWith('p001')); // its first attempt only
    const out = await startSweep(plan(), dir, { runOne: runs.runOne, jobs: 1, retryInvalid: 2, events: events(seen) }, 'once');
    expect(runs.calls).toEqual(['once-p000', 'once-p001', 'once-p001-try2', 'once-p002']);
    const p001 = out.results.find((r) => r.id === 'p001')!;
    expect(p001).toMatchObject({ status: 'completed', runDir: 'runs/once-p001-try2', earlier_runs: ['runs/once-p001'] });
    expect(out.results.filter((r) => r.earlier_runs)).toHaveLength(1);
    expect(out.answer.invalid_runs).toBe(0);
    const warnings = seen.flatMap((e) => (e.type === 'warn' ? [e.message] : []));
    expect(warnings).toEqual([
      'run p001 is invalid: 40 of 1000 drive commands (4.0 %) arrived too late for the next physics step; running it again (attempt 2 of 3, --retry-invalid)',
    ]);
  });

  it('stops after the attempts it was given: the point stays invalid, naming every earlier run; --resume does not run it again', async () => {
    const runs = lateRuns((req) => req.runId.includes('p002'));
    const out = await startSweep(plan(), dir, { runOne: runs.runOne, jobs: 1, retryInvalid: 2 }, 'always');
    expect(runs.calls.filter((id) => id.includes('p002'))).toEqual(['always-p002', 'always-p002-try2', 'always-p002-try3']);
    expect(out.results.find((r) => r.id === 'p002')).toMatchObject({
      status: 'invalid',
      runDir: 'runs/always-p002-try3',
      earlier_runs: ['runs/always-p002', 'runs/always-p002-try2'],
    });
    expect(out.answer.invalid_runs).toBe(1);
    const again = lateRuns(() => false);
    await resumeSweep(dir, 'always', { runOne: again.runOne, jobs: 1, retryInvalid: 2 });
    expect(again.calls).toEqual([]);
  });

  it('--resume goes on with the attempts a point has left: stopped after its first, or given more; timing.csv counts them', async () => {
    let stop = false;
    const first = lateRuns((req) => {
      stop = req.runId === 'resumed-p001';
      return req.runId.includes('p001');
    });
    const out = await startSweep(plan(), dir, { runOne: first.runOne, jobs: 1, retryInvalid: 2, shouldStop: () => stop }, 'resumed');
    expect(first.calls).toEqual(['resumed-p000', 'resumed-p001']);
    expect(out.results.find((r) => r.id === 'p001')).toMatchObject({ status: 'invalid', runDir: 'runs/resumed-p001' });

    const second = lateRuns((req) => req.runId.includes('p001'));
    const resumed = await resumeSweep(dir, 'resumed', { runOne: second.runOne, jobs: 1, retryInvalid: 1 });
    expect(second.calls).toEqual(['resumed-p001-try2', 'resumed-p002']);
    expect(resumed.results.find((r) => r.id === 'p001')).toMatchObject({
      status: 'invalid',
      runDir: 'runs/resumed-p001-try2',
      earlier_runs: ['runs/resumed-p001'],
    });

    const third = lateRuns(() => false);
    const more = await resumeSweep(dir, 'resumed', { runOne: third.runOne, jobs: 1, retryInvalid: 2 });
    expect(third.calls).toEqual(['resumed-p001-try3']);
    expect(more.results.find((r) => r.id === 'p001')).toMatchObject({
      status: 'completed',
      earlier_runs: ['runs/resumed-p001', 'runs/resumed-p001-try2'],
    });
    const timing = parse(readFileSync(join(more.dir, 'timing.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(timing.map((r) => [r.run, r.attempts])).toEqual([
      ['p000', '1'],
      ['p001', '3'],
      ['p002', '1'],
    ]);
  });

  it('without it (the default), an invalid run is recorded as it is', async () => {
    const runs = lateRuns((req) => req.runId.endsWith('p000'));
    const out = await startSweep(plan(), dir, { runOne: runs.runOne, jobs: 1 }, 'never');
    expect(runs.calls).toEqual(['never-p000', 'never-p001', 'never-p002']);
    expect(out.results.find((r) => r.id === 'p000')).toMatchObject({ status: 'invalid', runDir: 'runs/never-p000' });
    expect(out.results.every((r) => r.earlier_runs === undefined)).toBe(true);
  });
});
