import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../support/scratch-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');

function cavsim(args: string[]) {
  const r = spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('cavsim sweep --criterion on a delay x loss grid (simulated CAM platoon)', () => {
  const sweeps = scratchDir('cavsim-sweep-criteria-');

  it('answers with a critical delay per loss value for each criterion, with the heatmap and the per-loss series a column wide', () => {
    const r = cavsim([
      'sweep',
      'scenarios/platoon-cacc-cam.yaml',
      '--delay',
      '10,130,280ms',
      '--set',
      'network.loss=0,0.4',
      '--find-critical',
      '--criterion',
      'string-stability',
      '--criterion',
      'collision',
      '--sweeps-dir',
      sweeps,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [stability, collision, summaryCsv] = r.stdout.split('\n');
    expect(stability).toMatch(/^string-unstable along network\.delay, by network\.loss: 0 → .+; 0\.4 → .+$/);
    expect(collision).toMatch(/^collisions along network\.delay, by network\.loss: 0 → .+; 0\.4 → .+$/);
    const dir = summaryCsv.replace(/\/summary\.csv$/, '');
    const answer = JSON.parse(readFileSync(join(dir, 'answer.json'), 'utf8'));
    expect(answer.criteria.map((c: { criterion: string }) => c.criterion)).toEqual(['string-stability', 'collision']);
    for (const c of answer.criteria) {
      expect(c.path).toBe('network.delay');
      expect(c.curve.map((cut: { at: Record<string, string> }) => cut.at['network.loss'])).toEqual(['0', '0.4']);
    }
    // the figures are drawn with a progress line
    expect(r.stderr).toMatch(/drawing figure 1\/\d: critical-map/);
    for (const name of ['critical-map', 'v2x']) {
      const svg = readFileSync(join(dir, 'plots', `${name}.svg`), 'utf8');
      expect(svg).toMatch(/^<svg[^>]*\swidth="336"/);
      expect(existsSync(join(dir, 'plots', `${name}.pdf`))).toBe(true);
    }
    // per-loss series in the V2X figure
    const v2x = JSON.parse(readFileSync(join(dir, 'plots', 'v2x.vl.json'), 'utf8'));
    expect(JSON.stringify(v2x)).toContain('"group":"0.4"');
    const points = parse(readFileSync(join(dir, 'points.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(points).toHaveLength(6);
    for (const p of points) {
      expect(Number(p.beacon_age_mean_ms_mean)).toBeGreaterThan(0);
      expect(p.string_unstable_measured).toBe('1');
      expect(Number(p.delivery_ratio_mean)).toBeLessThanOrEqual(1);
    }
  });

  it('refuses a criterion it does not know, naming the flag and the forms, before anything runs', () => {
    const r = cavsim([
      'sweep',
      'scenarios/platoon-cacc-cam.yaml',
      '--delay',
      '10,100ms',
      '--criterion',
      'delivery>0.9',
      '--sweeps-dir',
      sweeps,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--criterion delivery>0.9');
    expect(r.stderr).toContain('delivery<RATIO');
    const none = cavsim(['sweep', 'scenarios/platoon-cacc-cam.yaml', '--find-critical', '--sweeps-dir', sweeps]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--find-critical without a field');
  });
});
