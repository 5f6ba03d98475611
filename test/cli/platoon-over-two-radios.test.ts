import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../support/scratch-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');

describe('the CAM platoon over LTE-V2X and over 802.11p in one sweep (docs/sidelink.md figure)', () => {
  const sweeps = scratchDir('cavsim-two-radios-');

  it('gives both technologies delivery, string stability and latency figures, the reservation wait on lte-v2x', () => {
    const r = spawnSync(
      'node',
      [
        CLI,
        'sweep',
        'scenarios/platoon-cacc-cam-sidelink.yaml',
        '--set',
        'network.channel=lte-v2x,wifi-80211p',
        '--set',
        'duration=6s',
        '--repeat',
        '2',
        '--criterion',
        'string-stability',
        '--criterion',
        'collision',
        '--sweeps-dir',
        sweeps,
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } },
    );
    expect(r.status, r.stderr).toBe(0);
    const summaryCsv = r.stdout.split('\n').find((l) => l.endsWith('/summary.csv'));
    expect(summaryCsv).toBeDefined();
    const dir = (summaryCsv as string).replace(/\/summary\.csv$/, '');
    const points = parse(readFileSync(join(dir, 'points.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(points.map((p) => p['network.channel'])).toEqual(['lte-v2x', 'wifi-80211p']);
    for (const p of points) {
      expect(p.runs).toBe('2');
      expect(p.string_unstable_measured).toBe('2');
      const delivery = Number(p.delivery_ratio_mean);
      expect(delivery).toBeGreaterThan(0.9);
      expect(delivery).toBeLessThanOrEqual(1);
      expect(Number(p.string_stability_worst_mean)).toBeGreaterThan(0);
    }
    const [lte, wifi] = points;
    // a CAM waits for its car's reserved subframe on lte-v2x; on 802.11p it is on the air within a millisecond
    expect(Number(lte.v2v_p50_ms_mean)).toBeGreaterThan(10 * Number(wifi.v2v_p50_ms_mean));
    expect(Number(wifi.v2v_p99_ms_mean)).toBeLessThan(5);
    const v2x = JSON.parse(readFileSync(join(dir, 'plots', 'v2x.vl.json'), 'utf8'));
    const drawn = JSON.stringify(v2x);
    expect(drawn).toContain('lte-v2x');
    expect(drawn).toContain('wifi-80211p');
    expect(drawn).toContain('string-stability');
  });
});
