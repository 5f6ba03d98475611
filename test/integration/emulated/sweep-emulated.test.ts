import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { emulatedHostState } from './host-state.js';
import { CLI, emulatedE2e, HEAD_ON, ROOT } from './support/e2e.js';

const { runsDir: sweepsDir, real } = await emulatedE2e('sweep-emulated');

/**
 * `cavsim sweep --runtime docker` as docs/sweep.md prints it: each point an emulated run (containers,
 * host network, ns-3 in real time), the tables and the answer as for simulated runs, and the host as
 * it was. `--retry-invalid 1` is given so the real path runs it: a run late on this machine is run again.
 */
describe.skipIf(real.skip)('an emulated sweep (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    before = emulatedHostState();
  });

  it('runs every point emulated, answers as a simulated sweep does, and leaves the host as it was', () => {
    const r = spawnSync(
      'node',
      [
        CLI,
        'sweep',
        HEAD_ON,
        '--delay',
        '10,300ms',
        '--runtime',
        'docker',
        '--retry-invalid',
        '1',
        '--no-plots',
        '--json',
        '--sweeps-dir',
        sweepsDir,
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: 'true' } },
    );
    expect(r.status, r.stderr.slice(-3000)).toBe(0);
    const out = JSON.parse(r.stdout) as { dir: string; answer: { invalid_runs: number; points: number } };
    console.log(
      `[sweep emulated] ${r.stderr
        .split('\n')
        .filter((l) => /run |answer|invalid/.test(l))
        .join(' | ')}`,
    );
    const rows = parse(readFileSync(join(out.dir, 'summary.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row['network.delay_ms'])).toEqual(['10', '300']);
    // the thesis's answer: braking on the message in time at 10 ms, too late at 300 ms
    expect(rows.map((row) => row.collision)).toEqual(['false', 'true']);
    for (const row of rows) {
      expect(['completed', 'invalid']).toContain(row.status);
      if (row.status === 'invalid') expect(row.reason).toMatch(/late/);
    }
    // every attempt's run folder is kept, each an emulated run with its ns-3 channel's log
    const runs = readdirSync(join(out.dir, 'runs'));
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const run of runs) expect(existsSync(join(out.dir, 'runs', run, 'ns3.log'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out.dir, 'answer.json'), 'utf8')).points).toBe(2);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });
});
