import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expandGrid, parseAxis } from '../../../../src/sweep/grid.js';
import type { PlannedSweep } from '../../../../src/sweep/plan-sweep.js';
import { startSweep } from '../../../../src/sweep/run-sweep.js';
import { readSweepListing } from '../../../../src/ui/viewer/sweep-listing.js';
import { fakeRuntime } from '../../sweep/fake-runs.js';

const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-sweep-listing-'));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function gridPlan(sets: string[], repeat = 1): PlannedSweep {
  const axes = sets.map((s) => parseAxis(s));
  return {
    scenario: '/scenarios/head-on-brake.yaml',
    runtime: 'sim',
    fixed: [],
    axes,
    repeat,
    baseSeed: 1,
    mode: { type: 'grid', points: expandGrid(axes, repeat, 1) },
  };
}

describe('the sweep page listing', () => {
  it('has one row per run with its swept values and outcome, swept columns named first', async () => {
    const dir = tmp();
    // the fake cars collide above 137 ms
    await startSweep(gridPlan(['network.delay=100ms,200ms', 'network.loss=0,0.1']), dir, { runOne: fakeRuntime().runOne, jobs: 1 }, 'sw1');
    const sweepDir = join(dir, 'sw1');
    writeFileSync(join(sweepDir, 'runs', 'p000', 'scenario.resolved.json'), '{}');

    const listing = readSweepListing(sweepDir);
    expect(listing).toMatchObject({
      id: 'sw1',
      scenario: 'head-on-brake.yaml',
      runtime: 'sim',
      axisColumns: ['network.delay_ms', 'network.loss'],
    });
    expect(listing.columns.slice(0, 6)).toEqual(['run', 'repeat', 'seed', 'network.delay_ms', 'network.loss', 'status']);
    expect(listing.columns).toEqual(expect.arrayContaining(['collision', 'min_ttc_s', 'min_distance_m', 'min_gap_m']));
    expect(listing.columns).not.toContain('run_dir');
    expect(listing.runs.map((r) => [r.run, r.cells['network.delay_ms'], r.cells['network.loss'], r.cells.collision])).toEqual([
      ['p000', '100', '0', 'false'],
      ['p001', '100', '0.1', 'false'],
      ['p002', '200', '0', 'true'],
      ['p003', '200', '0.1', 'true'],
    ]);
    expect(Number(listing.runs[0].cells.min_distance_m)).toBeCloseTo(2.31);
    // only a run folder with its resolved scenario can be opened in the run view
    expect(listing.runs.map((r) => r.openable)).toEqual([true, false, false, false]);
    expect(listing.answer).toEqual(expect.any(String));
  });

  it('lists the finished runs of a sweep that is still running or was stopped', async () => {
    const dir = tmp();
    const fake = fakeRuntime();
    await startSweep(
      gridPlan(['network.delay=10..50ms:10ms']),
      dir,
      { runOne: fake.runOne, jobs: 1, shouldStop: () => fake.calls.length >= 2 },
      'sw2',
    );
    const sweepDir = join(dir, 'sw2');
    // a sweep that is still running has written no tables and no answer yet
    for (const file of ['summary.csv', 'answer.json']) rmSync(join(sweepDir, file));
    const listing = readSweepListing(sweepDir);
    expect(listing.runs.map((r) => r.cells['network.delay_ms'])).toEqual(['10', '20']);
    expect(listing.answer).toBeNull();
  });

  it('names the probed field of a critical search as its swept column', async () => {
    const dir = tmp();
    const plan: PlannedSweep = {
      ...gridPlan([]),
      mode: {
        type: 'critical',
        path: 'network.delay',
        lo: { text: '10ms', value: 10, unit: 'ms' },
        hi: { text: '500ms', value: 500, unit: 'ms' },
        tolerance: 50,
        unit: 'ms',
        coarse: 3,
      },
    };
    await startSweep(plan, dir, { runOne: fakeRuntime().runOne, jobs: 1 }, 'c1');
    const listing = readSweepListing(join(dir, 'c1'));
    expect(listing.axisColumns).toEqual(['network.delay_ms']);
    expect(listing.runs.length).toBeGreaterThan(3);
    expect(listing.runs.every((r) => /^c\d{3}$/.test(r.run) && r.cells['network.delay_ms'] !== '')).toBe(true);
    expect(listing.answer).toMatch(/critical|collision/i);
  });

  it('is empty for a sweep that has finished no run yet', async () => {
    const dir = tmp();
    const fake = fakeRuntime();
    await startSweep(gridPlan(['network.delay=10ms,20ms']), dir, { runOne: fake.runOne, jobs: 1, shouldStop: () => true }, 'sw3');
    const listing = readSweepListing(join(dir, 'sw3'));
    expect(listing.axisColumns).toEqual(['network.delay']);
    expect(listing.runs).toEqual([]);
  });
});
