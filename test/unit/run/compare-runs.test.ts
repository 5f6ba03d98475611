import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { compareFile, compareRunFolders, compareSummaries } from '../../../src/run/compare-runs.js';

describe('comparing a replay with its run', () => {
  it('finds the first line that differs, and a file that ended early', () => {
    expect(compareFile('a.csv', 'h\n1\n2\n', 'h\n1\n2\n')).toEqual({ file: 'a.csv', identical: true });
    expect(compareFile('a.csv', 'h\n1\n2\n', 'h\n1\n3\n')).toEqual({
      file: 'a.csv',
      identical: false,
      firstDifference: { line: 3, original: '2', replay: '3' },
    });
    expect(compareFile('a.csv', 'h\n1\n2\n', 'h\n1\n')).toEqual({
      file: 'a.csv',
      identical: false,
      firstDifference: { line: 3, original: '2', replay: '' },
    });
  });

  it('ignores what describes the run rather than what it measured (wall time, timing, run id)', () => {
    const a = { run_id: 'x', wall_time_s: 1, timing: { a: 1 }, status: 'completed', min_distance_m: 3.1 };
    expect(compareSummaries(a, { ...a, run_id: 'y', wall_time_s: 2, timing: { a: 2 } })).toEqual([]);
    expect(compareSummaries(a, { ...a, min_distance_m: 3.2 })).toEqual([{ key: 'min_distance_m', original: 3.1, replay: 3.2 }]);
  });

  it('compares the measurement files both folders have, and calls two equal folders identical', () => {
    const root = mkdtempSync(join(tmpdir(), 'cavsim-compare-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const [a, b] = ['a', 'b'].map((n) => {
      const dir = join(root, n);
      mkdirSync(dir);
      writeFileSync(join(dir, 'vehicles.csv'), 't_s\n0\n');
      writeFileSync(join(dir, 'summary.json'), JSON.stringify({ status: 'completed', wall_time_s: n === 'a' ? 1 : 2 }));
      writeFileSync(join(dir, 'compute.csv'), n);
      return dir;
    });
    expect(compareRunFolders(a, b)).toEqual({ identical: true, files: [{ file: 'vehicles.csv', identical: true }], summary: [] });
    writeFileSync(join(b, 'events.csv'), 't_s\n1\n');
    expect(compareRunFolders(a, b).identical).toBe(false);
  });
});
