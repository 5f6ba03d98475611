import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Reproducibility: every run folder has a manifest, and `cavsim replay` runs it again. The simulated
 * runtime (here with its ns-3 lock-step engine, a real ns-3 process) must reproduce every byte.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-replay-'));
const runsDir = join(work, 'runs');

function cavsim(args: string[]) {
  const r = spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function up(scenario: string, ...extra: string[]): string {
  const r = cavsim(['up', scenario, '--runtime', 'sim', '--runs-dir', runsDir, '--json', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).run_dir as string;
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cavsim replay (simulated runtime)', () => {
  it('writes a manifest that traces the run: cavsim commit, scenario and map hashes, seed, command, versions', () => {
    const dir = up('scenarios/head-on-brake.yaml', '--set', 'network.delay=50ms');
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(m).toMatchObject({ manifest_version: 1, runtime: 'sim', seed: expect.any(Number), engine: 'ns3', node: process.version });
    expect(m.cavsim.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(m.cavsim.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(m.scenario.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.scenario.resolved_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.scenario.overrides).toEqual(['network.delay=50ms']);
    expect(m.map.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.ns3).toMatch(/^3\.\d+/);
    expect(m.kernel).toBeTruthy();
    expect(m.command).toEqual(expect.arrayContaining(['up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim']));
  });

  it('runs it again and says the outcome is identical, byte for byte', () => {
    const dir = up('scenarios/head-on-brake.yaml');
    const r = cavsim(['replay', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      run_dir: dir,
      runtime: 'sim',
      identical: true,
      agrees: true,
      status: 'completed',
      summary_differences: [],
    });
    expect(out.files.map((f: { file: string }) => f.file)).toEqual([
      'vehicles.csv',
      'pairs.csv',
      'collisions.csv',
      'v2v.csv',
      'events.csv',
    ]);
    expect(out.replay_dir).toBe(`${dir}-replay`);
    for (const f of ['vehicles.csv', 'v2v.csv'])
      expect(readFileSync(join(out.replay_dir, f), 'utf8')).toBe(readFileSync(join(dir, f), 'utf8'));
    expect(JSON.parse(readFileSync(join(out.replay_dir, 'replay.json'), 'utf8')).identical).toBe(true);

    const text = cavsim(['replay', dir]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/identical: vehicles\.csv, pairs\.csv, collisions\.csv, v2v\.csv, events\.csv byte for byte/);
    expect(text.stdout).toContain(`${dir}-replay-2`);
  });

  it('says where a run differs, with exit status 1', () => {
    const dir = up('scenarios/head-on-brake.yaml');
    const file = join(dir, 'vehicles.csv');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[5] = lines[5].replace(/,(\d)/, ',9$1');
    writeFileSync(file, lines.join('\n'));
    const r = cavsim(['replay', dir]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/differs {2}vehicles\.csv from line 6:/);
    expect(r.stdout).toMatch(/same {5}pairs\.csv/);
  });

  it('refuses, with exit status 2, a run whose map changed since, and a folder without a manifest', () => {
    cpSync(join(ROOT, 'maps'), join(work, 'maps'), { recursive: true });
    cpSync(join(ROOT, 'scenarios/head-on-brake.yaml'), join(work, 'scenarios/head-on-brake.yaml'), { recursive: true });
    const dir = up(join(work, 'scenarios/head-on-brake.yaml'));
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.map.file.startsWith(work)).toBe(true);
    writeFileSync(manifest.map.file, `${readFileSync(manifest.map.file, 'utf8')}\n# edited\n`);
    const changed = cavsim(['replay', dir]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/map .* changed since run/);

    rmSync(join(dir, 'manifest.json'));
    const none = cavsim(['replay', dir]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/has no manifest\.json/);
    expect(existsSync(`${dir}-replay`)).toBe(false);
  });
});
