import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import type { SweepEvent } from '../../../src/sweep/events.js';
import { expandGrid, parseAxis } from '../../../src/sweep/grid.js';
import type { PlannedSweep } from '../../../src/sweep/plan-sweep.js';
import { executeSweep, resumeSweep, startSweep } from '../../../src/sweep/run-sweep.js';
import { SweepFolder } from '../../../src/sweep/sweep-folder.js';
import { EventBus } from '../../../src/util/event-bus.js';
import { fakeRuntime } from './fake-runs.js';

const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-sweep-test-'));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function gridPlan(values = '10..300ms', repeat = 1): PlannedSweep {
  const axes = [parseAxis(`network.delay=${values}`)];
  return {
    scenario: '/nowhere/scenario.yaml',
    runtime: 'sim',
    fixed: ['duration=3s'],
    axes,
    repeat,
    baseSeed: 7,
    mode: { type: 'grid', points: expandGrid(axes, repeat, 7) },
  };
}

describe('sweep execution and resume', () => {
  it('runs every point once, records each as it finishes, and writes one CSV row per run', async () => {
    const dir = tmp();
    const fake = fakeRuntime();
    const events: SweepEvent[] = [];
    const bus = new EventBus<SweepEvent>();
    bus.on((e) => events.push(e));
    const out = await startSweep(gridPlan(), dir, { runOne: fake.runOne, jobs: 1, events: bus }, 'sw1');
    expect(out.stopped).toBe(false);
    expect(fake.calls.map((c) => c.runId)).toEqual(out.spec.mode.type === 'grid' ? out.spec.mode.points.map((p) => p.id) : []);
    expect(fake.calls[0]).toMatchObject({
      runtime: 'sim',
      scenarioFile: '/nowhere/scenario.yaml',
      overrides: ['duration=3s', 'network.delay=10ms'],
      runsDir: join(dir, 'sw1', 'runs'),
    });
    const lines = readFileSync(join(dir, 'sw1', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(10);
    const csv = readFileSync(join(dir, 'sw1', 'summary.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toMatch(/^run,repeat,seed,network.delay_ms,status,collision,min_ttc_s,min_distance_m,/);
    expect(csv).toHaveLength(11);
    expect(csv.at(-1)).toMatch(/^p009,0,1,300,completed,true,/);
    expect(csv[1]).toMatch(/^p000,0,1,10,completed,false,/);
    const done = events.filter((e) => e.type === 'run-done');
    expect(done.map((e) => e.type === 'run-done' && e.done)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(events.at(-1)).toMatchObject({ type: 'sweep-done', done: 10, total: 10, stopped: false });
    const grid = JSON.parse(readFileSync(join(dir, 'sw1', 'grid.json'), 'utf8'));
    expect(grid).toMatchObject({ schema: 'cavsim.sweep/1', id: 'sw1', repeat: 1, fixed: ['duration=3s'] });
    expect(grid.mode.points).toHaveLength(10);
  });

  it('an interrupted sweep keeps its finished runs; --resume runs only the rest', async () => {
    const dir = tmp();
    const first = fakeRuntime();
    const stopped = await startSweep(gridPlan(), dir, { runOne: first.runOne, jobs: 1, shouldStop: () => first.calls.length >= 4 }, 'sw2');
    expect(stopped.stopped).toBe(true);
    expect(stopped.results).toHaveLength(4);

    const second = fakeRuntime();
    const events: SweepEvent[] = [];
    const bus = new EventBus<SweepEvent>();
    bus.on((e) => events.push(e));
    const resumed = await resumeSweep(dir, 'sw2', { runOne: second.runOne, jobs: 1, events: bus });
    expect(second.calls.map((c) => c.runId)).toEqual(['p004', 'p005', 'p006', 'p007', 'p008', 'p009']);
    expect(resumed.results).toHaveLength(10);
    expect(events[0]).toMatchObject({ type: 'sweep-start', total: 10, alreadyDone: 4 });

    const third = fakeRuntime();
    await resumeSweep(dir, join(dir, 'sw2'), { runOne: third.runOne, jobs: 1 });
    expect(third.calls).toEqual([]);
  });

  it('records a run that threw as failed and runs it again on resume', async () => {
    const dir = tmp();
    const first = fakeRuntime({ failOnCall: (n) => (n === 3 ? new Error('engine went away') : undefined) });
    const out = await startSweep(gridPlan('10,20,30,40ms'), dir, { runOne: first.runOne, jobs: 1 }, 'sw3');
    expect(out.results.find((r) => r.id === 'p002')).toMatchObject({ status: 'failed', reason: 'engine went away' });
    expect(out.results.filter((r) => r.status === 'completed')).toHaveLength(3);

    const second = fakeRuntime();
    const resumed = await resumeSweep(dir, 'sw3', { runOne: second.runOne, jobs: 1 });
    expect(second.calls.map((c) => c.runId)).toEqual(['p002']);
    expect(resumed.results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  });

  it('skips a results line cut short by a crash', async () => {
    const dir = tmp();
    await startSweep(gridPlan('10,20,30ms'), dir, { runOne: fakeRuntime().runOne, jobs: 1, shouldStop: () => false }, 'sw4');
    appendFileSync(join(dir, 'sw4', 'results.jsonl'), '{"id":"p00');
    const folder = SweepFolder.open(dir, 'sw4');
    expect(folder.readResults()).toHaveLength(3);
    const again = fakeRuntime();
    await executeSweep(folder, { runOne: again.runOne, jobs: 1 });
    expect(again.calls).toEqual([]);
  });

  it('stops at the first invalid value: every later point would fail the same way', async () => {
    const dir = tmp();
    const fake = fakeRuntime({ failOnCall: (n) => (n === 2 ? new UserInputError('bad scenario') : undefined) });
    await expect(startSweep(gridPlan(), dir, { runOne: fake.runOne, jobs: 1 }, 'sw5')).rejects.toThrow('bad scenario');
    expect(fake.calls).toHaveLength(2);
    expect(SweepFolder.open(dir, 'sw5').readResults()).toHaveLength(1);
  });

  it('runs up to --jobs points at once', async () => {
    const dir = tmp();
    const fake = fakeRuntime();
    const out = await startSweep(gridPlan('10..300ms:10ms'), dir, { runOne: fake.runOne, jobs: 3 }, 'sw6');
    expect(out.results).toHaveLength(30);
    expect(fake.maxRunning()).toBe(3);
    expect(new Set(fake.calls.map((c) => c.runId)).size).toBe(30);
  });

  it('repeats points with recorded seeds and writes means with 95% intervals', async () => {
    const dir = tmp();
    const fake = fakeRuntime();
    await startSweep(gridPlan('10,300ms', 3), dir, { runOne: fake.runOne, jobs: 2 }, 'sw7');
    expect(fake.calls.map((c) => c.overrides.at(-1)).sort()).toEqual(['seed=7', 'seed=7', 'seed=8', 'seed=8', 'seed=9', 'seed=9']);
    const summary = readFileSync(join(dir, 'sw7', 'summary.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(summary.slice(1).map((l) => l.split(',').slice(0, 4).join(','))).toEqual([
      'p000-r0,0,7,10',
      'p000-r1,1,8,10',
      'p000-r2,2,9,10',
      'p001-r0,0,7,300',
      'p001-r1,1,8,300',
      'p001-r2,2,9,300',
    ]);
    const points = readFileSync(join(dir, 'sw7', 'points.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    expect(points[0].slice(0, 13)).toEqual([
      'network.delay_ms',
      'runs',
      'valid_runs',
      'collisions',
      'collision_rate',
      'collision_rate_lo95',
      'collision_rate_hi95',
      'min_ttc_s_mean',
      'min_ttc_s_ci95',
      'min_ttc_s_lo95',
      'min_ttc_s_hi95',
      'min_distance_m_mean',
      'min_distance_m_ci95',
    ]);
    // distances 3.2 + seed/100 for seeds 7, 8, 9: mean 3.28, sd 0.01, half-width 4.303 * 0.01 / sqrt(3)
    expect(Number(points[1][11])).toBeCloseTo(3.28, 6);
    expect(Number(points[1][12])).toBeCloseTo((4.303 * 0.01) / Math.sqrt(3), 5);
    expect(points[2].slice(1, 7)).toEqual(['3', '3', '3', '1', '0.438503', '1']);
    // a TTC of 0.6 - 0.3 s at every seed: zero width; at 10 ms the interval's ends sit around the mean
    const col = (name: string) => points[0].indexOf(name);
    expect(Number(points[2][col('min_ttc_s_lo95')])).toBeCloseTo(0.3, 6);
    expect(points[1][col('delivery_ratio_mean')]).toBe('');
  });
});

describe('critical search on runs', () => {
  const criticalPlan = (repeat = 1): PlannedSweep => ({
    scenario: '/nowhere/scenario.yaml',
    runtime: 'sim',
    fixed: [],
    axes: [],
    repeat,
    baseSeed: 1,
    mode: {
      type: 'critical',
      path: 'network.delay',
      lo: { text: '10ms', value: 10, unit: 'ms' },
      hi: { text: '500ms', value: 500, unit: 'ms' },
      tolerance: 5,
      unit: 'ms',
      coarse: 5,
    },
  });

  it('brackets the critical delay, records every probe as a run, and reuses them on resume', async () => {
    const dir = tmp();
    const fake = fakeRuntime({ criticalMs: 233 });
    const out = await startSweep(criticalPlan(), dir, { runOne: fake.runOne, jobs: 1 }, 'c1');
    expect(out.critical).toMatchObject({ status: 'found', path: 'network.delay', unit: 'ms', monotonic: true });
    expect(out.critical!.lastSafe!).toBeLessThanOrEqual(233);
    expect(out.critical!.firstCollision!).toBeGreaterThan(233);
    expect(out.critical!.firstCollision! - out.critical!.lastSafe!).toBeLessThanOrEqual(5);
    expect(out.results).toHaveLength(fake.calls.length);
    expect(JSON.parse(readFileSync(join(dir, 'c1', 'critical.json'), 'utf8')).status).toBe('found');

    const again = fakeRuntime({ criticalMs: 233 });
    const resumed = await resumeSweep(dir, 'c1', { runOne: again.runOne, jobs: 1 });
    expect(again.calls).toEqual([]);
    expect(resumed.critical).toEqual(out.critical);
  });

  it('runs every seed at a probed value and collides when any of them does', async () => {
    const dir = tmp();
    const fake = fakeRuntime({ criticalMs: 100 });
    const out = await startSweep(criticalPlan(2), dir, { runOne: fake.runOne, jobs: 2 }, 'c2');
    expect(fake.calls.length % 2).toBe(0);
    expect(out.critical!.status).toBe('found');
    expect(new Set(fake.calls.map((c) => c.runId)).size).toBe(fake.calls.length);
  });
});

describe('opening a sweep folder to resume', () => {
  it('names a damaged or foreign grid.json instead of failing inside cavsim', () => {
    const dir = tmp();
    for (const [id, text] of [
      ['damaged', '{not json'],
      ['foreign', '{"schema":"cavsim.sweep/1"}'],
      ['null', 'null'],
    ]) {
      mkdirSync(join(dir, id));
      writeFileSync(join(dir, id, 'grid.json'), text);
    }
    expect(() => SweepFolder.open(dir, 'damaged')).toThrow(/damaged\/grid.json is damaged: not valid JSON/);
    expect(() => SweepFolder.open(dir, 'foreign')).toThrow(/foreign\/grid.json is not a cavsim sweep: no id or scenario/);
    expect(() => SweepFolder.open(dir, 'null')).toThrow(/null\/grid.json is not a cavsim sweep: schema undefined/);
    expect(() => SweepFolder.open(dir, 'damaged')).toThrow(UserInputError);
  });

  it('skips results.jsonl lines that are not results', async () => {
    const dir = tmp();
    const out = await startSweep(gridPlan('10,20ms'), dir, { runOne: fakeRuntime().runOne, jobs: 1 }, 'sw-lines');
    appendFileSync(join(out.dir, 'results.jsonl'), 'null\n{}\n[1]\n');
    expect(SweepFolder.open(dir, 'sw-lines').readResults()).toHaveLength(2);
  });
});
