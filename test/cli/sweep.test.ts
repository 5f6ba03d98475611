import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../support/scratch-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const SCENARIO = join(ROOT, 'scenarios/head-on-brake.yaml');
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function cavsim(args: string[]) {
  const r = spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const csvRows = (path: string) => parse(readFileSync(path, 'utf8'), { columns: true }) as Record<string, string>[];

const expectPng = (path: string) => {
  expect(existsSync(path), path).toBe(true);
  expect(readFileSync(path).subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
};

describe('cavsim sweep (simulated runtime)', () => {
  const sweeps = scratchDir('cavsim-sweep-cli-');

  it('sweeps the head-on delay: the minimum distance falls as the delay grows, with a collision at the high end', () => {
    const r = cavsim(['sweep', SCENARIO, '--delay', '10..300ms', '--runtime', 'sim', '--sweeps-dir', sweeps, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.runs).toBe(10);
    const rows = csvRows(join(out.dir, 'summary.csv'));
    expect(rows.map((x) => Number(x['network.delay_ms']))).toEqual([
      10, 42.222222, 74.444444, 106.666667, 138.888889, 171.111111, 203.333333, 235.555556, 267.777778, 300,
    ]);
    expect(rows.every((x) => x.status === 'completed')).toBe(true);
    const distances = rows.map((x) => Number(x.min_distance_m));
    for (let i = 1; i < distances.length; i++) expect(distances[i]).toBeLessThan(distances[i - 1]);
    expect(rows[0].collision).toBe('false');
    expect(rows.at(-1)!.collision).toBe('true');
    // a tenth of the bracket (3.2 ms) would be finer than the 10 ms control tick the runs can tell apart
    expect(out.answer.narrow).toEqual({ path: 'network.delay', range: '267.777778ms..300ms', tolerance: '10ms' });
    // the V2V latency follows the swept delay
    expect(Number(rows.at(-1)!.v2v_p50_ms)).toBeGreaterThanOrEqual(300);
    // runs finish in any order across worker threads
    expect(r.stderr).toMatch(/\[\d+\/10[^\]]*\] network.delay=300ms seed 1: COLLISION/);
    expect(r.stderr).toMatch(/\[10\/10\]/);
    for (const name of ['closest-approach', 'kinematics', 'v2x', 'delivery-distance']) {
      expectPng(join(out.dir, 'plots', `${name}.png`));
      expect(readFileSync(join(out.dir, 'plots', `${name}.svg`), 'utf8')).toMatch(/^<svg/);
    }

    const resumed = cavsim(['sweep', '--resume', out.sweep, '--sweeps-dir', sweeps, '--no-plots']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/10 runs .*10 already done/);
    expect(resumed.stderr).not.toMatch(/\[\d+\/10/);
    // the command it suggests to narrow the bracket runs as printed
    const hint = /^narrow it down: cavsim (sweep .*)$/m.exec(resumed.stderr);
    expect(hint?.[1]).toBe(
      'sweep scenarios/head-on-brake.yaml --runtime sim --find-critical network.delay --range 267.777778ms..300ms --tolerance 10ms',
    );
    const narrowed = cavsim([...hint![1].split(' '), '--sweeps-dir', sweeps, '--no-plots', '--json']);
    expect(narrowed.code, narrowed.stderr).toBe(0);
    expect(JSON.parse(narrowed.stdout).answer).toMatchObject({ last_safe: '270ms', first_collision: '280ms' });

    rmSync(join(out.dir, 'plots'), { recursive: true });
    const report = cavsim(['report', out.dir]);
    expect(report.code, report.stderr).toBe(0);
    expectPng(join(out.dir, 'plots', 'closest-approach.png'));
    const runReport = cavsim(['report', join(out.dir, 'runs', 'p009')]);
    expect(runReport.code, runReport.stderr).toBe(0);
    expectPng(join(out.dir, 'runs', 'p009', 'plots', 'kinematics.png'));
  });

  it('finds the critical delay by bisection at the step the runs can tell apart, and checks the outcome is monotonic', () => {
    const r = cavsim([
      'sweep',
      SCENARIO,
      '--find-critical',
      'delay',
      '--range',
      '10..500ms',
      '--tolerance',
      '5ms',
      '--runtime',
      'sim',
      '--jobs',
      '2',
      '--sweeps-dir',
      sweeps,
      '--no-plots',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { critical, dir, answer } = JSON.parse(r.stdout);
    // A delay acts at whole 10 ms control ticks: a 5 ms bracket would be invented, so the search stops at one tick.
    expect(critical).toMatchObject({
      status: 'found',
      path: 'network.delay',
      unit: 'ms',
      monotonic: true,
      resolution: 10,
      last_safe: 270,
      first_collision: 280,
      last_safe_text: '270ms',
      first_collision_text: '280ms',
    });
    expect(answer).toMatchObject({
      text: 'no collision up to 270ms, collisions from 280ms (network.delay)',
      last_safe: '270ms',
      first_collision: '280ms',
    });
    // every probe sat on the 10 ms grid
    expect(critical.samples.every((s: { value: number }) => s.value % 10 === 0)).toBe(true);
    // every recorded run agrees with the bracket
    for (const row of csvRows(join(dir, 'summary.csv'))) {
      const delay = Number(row['network.delay_ms']);
      expect(row.collision).toBe(delay >= critical.first_collision ? 'true' : 'false');
    }
    expect(r.stderr).toContain(
      'critical network.delay: no collision at 270ms, collision at 280ms; the runs tell network.delay apart in steps of 10ms (one control tick)',
    );
  });

  it('Ctrl-C stops taking runs, exits 130 and keeps what finished; --resume runs the rest', async () => {
    const child = spawn('node', [CLI, 'sweep', SCENARIO, '--delay', '10..300ms:2ms', '--jobs', '1', '--sweeps-dir', sweeps, '--no-plots'], {
      cwd: ROOT,
      env: { ...process.env, CI: '1' },
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (/\[3\/146/.test(stderr) && !child.killed) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code, stderr).toBe(130);
    const id = /continue with --resume (\S+)/.exec(stderr)![1];
    expect(stderr).toMatch(new RegExp(`stopped: \\d+ of 146 runs not done; \`cavsim sweep --resume ${id}\``));
    const resumed = cavsim(['sweep', '--resume', id, '--sweeps-dir', sweeps, '--no-plots', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      runs: 146,
      answer: { text: 'no collision up to 278ms, collisions from 280ms (network.delay)' },
    });
    expect(stdout).toContain('summary.csv');
  });

  it('sweeps a grid of two fields with repeats', () => {
    const r = cavsim([
      'sweep',
      SCENARIO,
      '--delay',
      '10,250ms',
      '--set',
      'vehicles.car1.start.speed=8,10',
      '--set',
      'duration=3s',
      '--repeat',
      '2',
      '--runtime',
      'sim',
      '--sweeps-dir',
      sweeps,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { dir } = JSON.parse(r.stdout);
    const rows = csvRows(join(dir, 'summary.csv'));
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((x) => x.seed))).toEqual(new Set(['1', '2']));
    expect(rows.every((x) => x.status === 'completed')).toBe(true);
    const points = csvRows(join(dir, 'points.csv'));
    expect(points).toHaveLength(4);
    expect(points.every((p) => p.runs === '2' && p.min_distance_m_mean !== '')).toBe(true);
    expectPng(join(dir, 'plots', 'closest-approach.png'));
  });

  it('rejects bad values before running anything, with exit status 2', () => {
    const backwards = cavsim(['sweep', SCENARIO, '--delay', '300..10ms', '--runtime', 'sim', '--sweeps-dir', sweeps]);
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toMatch(/runs backwards/);
    const invalid = cavsim(['sweep', SCENARIO, '--set', 'network.delay=10,banana', '--runtime', 'sim', '--sweeps-dir', sweeps]);
    expect(invalid.code).toBe(2);
    const unvalidated = cavsim(['sweep', SCENARIO, '--delay', '-5,10ms', '--runtime', 'sim', '--sweeps-dir', sweeps]);
    expect(unvalidated.code).toBe(2);
    expect(unvalidated.stderr).toMatch(/network.delay=-5ms/);
    const noRange = cavsim(['sweep', SCENARIO, '--find-critical', 'delay', '--runtime', 'sim', '--sweeps-dir', sweeps]);
    expect(noRange.code).toBe(2);
    expect(noRange.stderr).toMatch(/needs --range and --tolerance/);
  });

  it('documents its flags', () => {
    const r = cavsim(['sweep', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--delay', '--set', '--repeat', '--runtime', '--jobs', '--find-critical', '--range', '--tolerance', '--resume'])
      expect(r.stdout).toContain(flag);
  });
});
