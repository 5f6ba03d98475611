import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { ExternalProcessError } from '../../../src/errors.js';
import { failedRunLines, NO_REASON, reasonOfError } from '../../../src/sweep/failed-runs.js';
import { expandGrid, parseAxis } from '../../../src/sweep/grid.js';
import type { PlannedSweep } from '../../../src/sweep/plan-sweep.js';
import { startSweep } from '../../../src/sweep/run-sweep.js';
import { delayOf, fakeRuntime } from './fake-runs.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-sweep-failed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plan(repeat: number): PlannedSweep {
  const axes = [parseAxis('network.delay=10,20,30ms')];
  return {
    scenario: '/nowhere/scenario.yaml',
    runtime: 'sim',
    fixed: [],
    axes,
    repeat,
    baseSeed: 7,
    mode: { type: 'grid', points: expandGrid(axes, repeat, 7) },
  };
}

describe('a sweep whose runs fail says which and why', () => {
  it('each failed run: its point, seed and reason, in the answer, the printed lines and summary.csv', async () => {
    // the 20 ms point's first repeat dies with the lock-step channel's error, as a run under load once did
    const fake = fakeRuntime({
      failOnCall: (_n, req) =>
        delayOf(req) === 20 && req.runId.endsWith('r0')
          ? new ExternalProcessError(['lockstep-channel', '--serve'], 1, 'lockstep-channel: bad T line: T 1 0 0 85 500000000')
          : undefined,
    });
    const out = await startSweep(plan(2), dir, { runOne: fake.runOne, jobs: 1 }, 'failing');
    const failed = out.answer.failed;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ run: 'p001-r0', point: 'network.delay=20ms', run_dir: 'runs/p001-r0' });
    expect(failed[0].seed).toBe(out.spec.mode.type === 'grid' ? out.spec.mode.points.find((p) => p.id === 'p001-r0')!.seed : -1);
    expect(failed[0].reason).toContain('bad T line: T 1 0 0 85 500000000');
    expect(out.answer.lines.join('\n')).toMatch(/\(1 run failed\)/);
    const lines = failedRunLines(failed);
    expect(lines[0]).toBe('1 run failed:');
    expect(lines[1]).toBe(`  p001-r0 (network.delay=20ms, seed ${failed[0].seed}): ${failed[0].reason} [runs/p001-r0]`);
    // the tables and answer.json say the same
    const rows = parse(readFileSync(join(dir, 'failing', 'summary.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const row = rows.find((r) => r.run === 'p001-r0')!;
    expect([row.status, row.seed, row.reason]).toEqual(['failed', String(failed[0].seed), failed[0].reason]);
    expect(rows.filter((r) => r.status === 'completed').every((r) => r.reason === '')).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'failing', 'answer.json'), 'utf8')).failed).toEqual(failed);
  });

  it('a reason is never empty: details joined on one line, or where to look', () => {
    expect(reasonOfError(new Error(''))).toBe(NO_REASON);
    expect(reasonOfError('ns-3 died\nexit 139')).toBe('ns-3 died | exit 139');
    expect(failedRunLines([])).toEqual([]);
    expect(
      failedRunLines([
        { run: 'p000', point: '', seed: null, reason: 'x', run_dir: 'runs/p000' },
        { run: 'p001', point: 'a=1', seed: 3, reason: 'y', run_dir: 'runs/p001' },
      ]),
    ).toEqual([
      '2 runs failed:',
      '  p000 (the scenario as is, seed of the scenario): x [runs/p000]',
      '  p001 (a=1, seed 3): y [runs/p001]',
    ]);
  });
});
