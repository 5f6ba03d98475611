import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ns3LockstepProblem, requireReal } from '../support/real-components.js';

/**
 * `cavsim check channel` through the built CLI: ten parked cars 20 m apart beaconing at 10 Hz for
 * 2 s, run with the builtin 802.11p engine and with ns-3 in lock-step, side by side.
 */
const real = requireReal('cli/check-channel.test.ts', ns3LockstepProblem());
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const SCENARIO = 'test/cli/fixtures/parked-line-beacons.yaml';
const checksDir = mkdtempSync(join(tmpdir(), 'cavsim-check-channel-'));
const env = { ...process.env, CAVSIM_CHECKS_DIR: checksDir, CI: 'true' };
const cavsim = (...args: string[]) => spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env });
beforeAll(() => real.assertPresent());
afterAll(() => rmSync(checksDir, { recursive: true, force: true }));

describe.skipIf(real.skip)('cavsim check channel', () => {
  it('prints every distance bin with both engines side by side, the CBR of each and the MADs; each run has its cbr.csv', () => {
    const r = cavsim('check', 'channel', SCENARIO, '--check-id', 'text', '--max-distance', '250m');
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('check channel: parked-line-beacons, broadcast frames in 50 m bins to 250 m; each cell builtin / ns-3');
    expect(lines[1]).toMatch(new RegExp(`^  builtin: +${join(checksDir, 'text', 'runs', 'builtin')} \\(completed, \\d+ frames\\)$`));
    expect(lines[2]).toMatch(new RegExp(`^  ns-3: +${join(checksDir, 'text', 'runs', 'ns3')} \\(completed, \\d+ frames\\)$`));
    const header = lines.find((l) => l.startsWith('distance [m]'))!;
    expect(header.split(/ {2,}/).slice(0, 3)).toEqual(['distance [m]', 'frames', 'delivery']);
    const bins = lines.filter((l) => /^\d+-\d+ /.test(l)).map((l) => l.split(/ {2,}/));
    expect(bins.map((b) => b[0])).toEqual(['0-50', '50-100', '100-150', '150-200', '200-250']);
    // 90 beacon pairs at 20..180 m: every bin to 200 m has frames from both engines, the last none
    for (const bin of bins.slice(0, 4)) {
      expect(bin[1]).toMatch(/^[1-9]\d* \/ [1-9]\d*$/);
      expect(bin[2]).toMatch(/^\d\.\d{3} \/ \d\.\d{3}$/);
    }
    expect(bins[4].slice(1, 3)).toEqual(['0 / 0', '- / -']);
    expect(r.stdout).toMatch(/^CBR mean 0\.\d{3} \/ 0\.\d{3}$/m);
    expect(r.stdout).toMatch(/^delivery MAD \d\.\d{3}, over 4 bins$/m);
    expect(r.stdout).toMatch(/^CBR mean difference \d\.\d{3}, per-car MAD \d\.\d{3}$/m);
    for (const engine of ['builtin', 'ns3']) {
      const cbr = readFileSync(join(checksDir, 'text', 'runs', engine, 'cbr.csv'), 'utf8')
        .trim()
        .split('\n');
      expect(cbr[0]).toBe('t_start_s,t_end_s,vehicle,cbr');
      // ten cars, a row each per 100 ms window of the 2 s run
      expect(cbr.length - 1).toBeGreaterThanOrEqual(10 * 19);
      const summary = JSON.parse(readFileSync(join(checksDir, 'text', 'runs', engine, 'summary.json'), 'utf8'));
      expect(summary.parameters.network.engine).toBe(engine);
      expect(summary.v2v.cbr.per_car).toHaveLength(10);
    }
    const table = readFileSync(join(checksDir, 'text', 'channel-check.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(table[0]).toMatch(/^from_m,to_m,builtin_frames,builtin_delivery,.*ns3_frames,ns3_delivery/);
    expect(table).toHaveLength(6);
    expect(existsSync(join(checksDir, 'text', 'plots', 'delivery-distance.png'))).toBe(true);
    expect(readFileSync(join(checksDir, 'text', 'plots', 'delivery-distance.svg'), 'utf8')).toMatch(/ns-3/);
  });

  it('--json with --max-mad 0: exit 1 exactly when a deviation is above 0, and the figures say which', () => {
    const r = cavsim(
      'check',
      'channel',
      SCENARIO,
      '--check-id',
      'json',
      '--bin',
      '25m',
      '--max-distance',
      '200',
      '--max-mad',
      '0',
      '--json',
    );
    const doc = JSON.parse(r.stdout);
    expect(doc.runs.map((run: { engine: string; status: string }) => [run.engine, run.status])).toEqual([
      ['builtin', 'completed'],
      ['ns3', 'completed'],
    ]);
    expect(doc.runs[0].table.bins).toHaveLength(8);
    expect(doc.deviation.bins).toBeGreaterThan(0);
    const over = doc.deviation.delivery > 0 || doc.cbr_deviation.mean > 0;
    expect(r.status).toBe(over ? 1 : 0);
    expect(doc.exceeded.length > 0).toBe(over);
    expect(doc.figure).toBe(join(checksDir, 'json', 'plots', 'delivery-distance.png'));
  });

  it('bad input exits 2 and makes no check folder: a scenario that is not wifi-80211p, a bin no narrower than the range', () => {
    const csma = cavsim('check', 'channel', 'scenarios/head-on-brake.yaml', '--check-id', 'csma');
    expect(csma.status).toBe(2);
    expect(csma.stderr).toMatch(/network\.channel is csma; check channel compares the two engines of wifi-80211p/);
    expect(csma.stderr).toMatch(/hint: set network\.channel: wifi-80211p/);
    expect(existsSync(join(checksDir, 'csma'))).toBe(false);
    const bins = cavsim('check', 'channel', SCENARIO, '--bin', '600m');
    expect(bins.status).toBe(2);
    expect(bins.stderr).toMatch(/--bin 600m is not less than --max-distance 500m/);
    expect(cavsim('check', 'channel', SCENARIO, '--bin', 'wide').status).toBe(2);
  });
});
