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

const readCsv = (file: string) => parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];

describe('cavsim sweep --zip and --density', () => {
  const sweeps = scratchDir('cavsim-sweep-zip-');

  it('--zip advances delay and loss together: one axis for the answer, both in the tables, figures drawn', () => {
    const r = cavsim([
      'sweep',
      'scenarios/platoon-cacc-cam.yaml',
      '--delay',
      '10,100,200ms',
      '--set',
      'network.loss=0,0.2,0.4',
      '--zip',
      '--find-critical',
      '--criterion',
      'collision',
      '--sweeps-dir',
      sweeps,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [line, summary] = r.stdout.split('\n');
    expect(line).toMatch(/\(network\.delay\+network\.loss\)$/);
    const dir = summary.replace(/\/summary\.csv$/, '');
    const answer = JSON.parse(readFileSync(join(dir, 'answer.json'), 'utf8'));
    expect(answer.criteria[0].path).toBe('network.delay+network.loss');
    expect(answer.points).toBe(3);
    const points = readCsv(join(dir, 'points.csv'));
    expect(points.map((p) => `${p['network.delay_ms']}/${p['network.loss']}`)).toEqual(['10/0', '100/0.2', '200/0.4']);
    expect(existsSync(join(dir, 'plots', 'v2x.svg'))).toBe(true);
    // the figures' x axis names both fields of the pair
    expect(readFileSync(join(dir, 'plots', 'v2x.vl.json'), 'utf8')).toContain('V2V delay [ms] with frame loss probability');
    // one axis: no heatmap of a grid
    expect(existsSync(join(dir, 'plots', 'critical-map.svg'))).toBe(false);
    // a platoon's frames all travel less than 50 m: the table is written, a one-point curve is not drawn
    expect(readCsv(join(dir, 'delivery-distance.csv')).map((p) => p.from_m)).toEqual(['0', '0', '0']);
    expect(r.stderr).toContain('not drawn: delivery-by-point (every frame was sent within one 50 m bin');
    expect(existsSync(join(dir, 'plots', 'delivery-by-point.svg'))).toBe(false);
  });

  it('refuses zipped flags of different lengths, naming them, exit 2 before anything runs', () => {
    const r = cavsim([
      'sweep',
      'scenarios/platoon-cacc-cam.yaml',
      '--delay',
      '10,100,200ms',
      '--set',
      'network.loss=0,0.2',
      '--zip',
      '--sweeps-dir',
      sweeps,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--delay: 3 values');
    expect(r.stderr).toContain('--set network.loss: 2 values');
  });

  it('--density sweeps a traffic block, drawn against the density; a critical search on it answers in vehicles per km', () => {
    const small = ['--set', 'traffic.road.length=400m', '--set', 'duration=1s', '--sweeps-dir', sweeps];
    const r = cavsim(['sweep', 'scenarios/density-highway.yaml', '--density', '20,40,80veh/km', '--criterion', 'delivery<0.5', ...small]);
    expect(r.code, r.stderr).toBe(0);
    const dir = r.stdout.split('\n')[1].replace(/\/summary\.csv$/, '');
    const points = readCsv(join(dir, 'points.csv'));
    expect(points.map((p) => p['traffic.density_veh_per_km'])).toEqual(['20', '40', '80']);
    expect(points.every((p) => Number(p.cbr_mean_mean) > 0)).toBe(true);
    // more cars, busier channel
    expect(Number(points[2].cbr_mean_mean)).toBeGreaterThan(Number(points[0].cbr_mean_mean));
    expect(readFileSync(join(dir, 'plots', 'v2x.vl.json'), 'utf8')).toContain('traffic density [veh/km]');
    // delivery against distance: per run (50 m bins, by loss reason) and per point in the sweep folder, with figures
    const run = readFileSync(join(dir, 'runs', 'p000', 'delivery-distance.csv'), 'utf8').split('\n');
    expect(run[0]).toMatch(/^from_m,to_m,frames,delivered,channel_loss,below_sensitivity,/);
    expect(run[1]).toMatch(/^0,50,[1-9]/);
    const perPoint = readCsv(join(dir, 'delivery-distance.csv'));
    expect([...new Set(perPoint.map((p) => p['traffic.density_veh_per_km']))]).toEqual(['20', '40', '80']);
    expect(perPoint.every((p) => Number(p.to_m) - Number(p.from_m) === 50)).toBe(true);
    expect(existsSync(join(dir, 'plots', 'delivery-by-point.svg'))).toBe(true);
    const report = cavsim(['report', join(dir, 'runs', 'p000')]);
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(join(dir, 'runs', 'p000', 'plots', 'delivery-outcomes.vl.json'), 'utf8')).toMatch(/"outcome": ?"delivered"/);
    const search = cavsim([
      'sweep',
      'scenarios/density-highway.yaml',
      '--find-critical',
      'density',
      '--range',
      '5..400/km',
      '--tolerance',
      '20/km',
      '--coarse',
      '3',
      '--criterion',
      'delivery<0.8',
      '--no-plots',
      ...small,
    ]);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout.split('\n')[0]).toMatch(
      /^delivery at least 0\.8 up to [\d.]+\/km, delivery below 0\.8 from [\d.]+\/km \(traffic\.density\)$/,
    );
  });

  it('refuses a density on a scenario without a traffic: block, with the fix, exit 2', () => {
    const r = cavsim(['sweep', 'scenarios/platoon-cacc-cam.yaml', '--density', '20,40veh/km', '--sweeps-dir', sweeps]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--density');
    expect(r.stderr).toContain('has no traffic: block');
    expect(r.stderr).toContain('scenarios/density-highway.yaml');
  });
});
