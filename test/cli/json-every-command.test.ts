import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerProblem, requireReal } from '../support/real-components.js';

/**
 * Every command answers `--json` with one JSON document on stdout, keys in snake_case (scenario
 * fields keep their scenario names), errors included: `{"error": {kind, message, details, hint, exit_status}}`.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-json-'));
const env = {
  ...process.env,
  CAVSIM_RUNS_DIR: join(work, 'runs'),
  CAVSIM_SWEEPS_DIR: join(work, 'sweeps'),
  CAVSIM_STATE_DIR: join(work, 'state'),
  CI: 'true',
};
afterAll(() => rmSync(work, { recursive: true, force: true }));

function json(args: string[], status = 0): Record<string, unknown> {
  const r = spawnSync('node', [CLI, ...args, '--json'], { cwd: ROOT, encoding: 'utf8', env, maxBuffer: 64 << 20 });
  expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(status);
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(camelKeys(doc, ['validate', 'plan', 'schema'].includes(args[0])), `${args.join(' ')}: camelCase keys`).toEqual([]);
  return doc;
}

/** The one line `view --json` prints once it serves `dir`; the server is stopped after. */
async function viewJson(dir: string): Promise<Record<string, unknown>> {
  const child = spawn('node', [CLI, 'view', dir, '--no-open', '--port', '0', '--json'], { cwd: ROOT, env });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.once('exit', (code) => reject(new Error(`view exited ${code} before printing: ${out}`)));
    });
    return JSON.parse(line) as Record<string, unknown>;
  } finally {
    child.kill('SIGINT');
  }
}

/**
 * Keys with an upper-case letter. The resolved scenario (validate, and a summary's `parameters`) and
 * the plan keep the scenario's own field names (`dataRate`, `txPower`), as the scenario file has them.
 */
function camelKeys(value: unknown, exempt: boolean, path = ''): string[] {
  if (exempt || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => camelKeys(v, false, `${path}[${i}]`));
  return Object.entries(value).flatMap(([k, v]) => [
    ...(/[A-Z]/.test(k) ? [`${path}.${k}`] : []),
    ...camelKeys(v, k === 'parameters', `${path}.${k}`),
  ]);
}

const docker = requireReal('cli/json-every-command.test.ts (images --check)', await dockerProblem());

describe('--json on every command', () => {
  it('validate, up, summary, report, replay, mcap, waypoints, plan, schema, status, teardown, doctor', () => {
    expect(json(['validate', 'scenarios/head-on-brake.yaml'])).toMatchObject({ name: 'head-on-brake' });
    const error = json(['validate', 'scenarios/head-on-brake.yaml', '--set', 'network.delay=fast'], 2).error as Record<string, unknown>;
    expect(error).toMatchObject({ kind: 'user_input', exit_status: 2 });
    expect(JSON.stringify(error)).toMatch(/network\.delay/);
    expect(json(['up', 'scenarios/nope.yaml'], 2)).toMatchObject({ error: { kind: 'user_input', exit_status: 2 } });
    expect(json(['up', 'scenarios/head-on-brake.yaml', '--bogus'], 2)).toMatchObject({ error: { kind: 'usage', exit_status: 2 } });

    const up = json(['up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim']);
    expect(up).toMatchObject({ status: 'completed', run_dir: expect.any(String) });
    const runDir = up.run_dir as string;
    expect(json(['summary', runDir])).toMatchObject({ run_id: up.run_id, run_dir: runDir });
    const report = json(['report', runDir]);
    expect(report).toMatchObject({ dir: runDir, tables: expect.any(Array), figures: expect.any(Array) });
    expect(json(['replay', runDir])).toMatchObject({ identical: true, replay_dir: `${runDir}-replay` });
    expect(json(['mcap', runDir])).toMatchObject({ file: join(runDir, 'run.mcap'), messages: expect.any(Number), channels: 12 });
    const recorded = json(['waypoints', 'record', runDir, '--vehicle', 'car0', '-o', join(runDir, 'car0.waypoints.csv')]);
    expect(recorded).toMatchObject({ output: join(runDir, 'car0.waypoints.csv'), count: expect.any(Number) });
    const resampled = json(['waypoints', 'resample', join(runDir, 'car0.waypoints.csv'), '-o', '-']);
    expect(resampled.waypoints).toHaveLength(resampled.count as number);
    expect(
      json(['waypoints', 'resample', join(runDir, 'car0.waypoints.csv'), '-o', join(runDir, 'car0.1m.csv'), '--spacing', '1']),
    ).toMatchObject({ output: join(runDir, 'car0.1m.csv'), count: expect.any(Number) });
    expect(json(['waypoints', 'resample', join(runDir, 'nothing.csv'), '-o', '-'], 2)).toMatchObject({
      error: { kind: 'user_input', exit_status: 2 },
    });
    expect(json(['waypoints', 'record', runDir, '--vehicle', 'nobody'], 2)).toMatchObject({
      error: { kind: 'user_input', exit_status: 2, message: expect.stringContaining('no vehicle "nobody"') },
    });
    expect(json(['plan', 'scenarios/head-on-brake.yaml'])).toHaveProperty('vehicles');
    expect(json(['schema'])).toMatchObject({ title: 'cavsim scenario', type: 'object' });
    expect(json(['status'])).toEqual({ runs: [] });
    expect(json(['teardown', '--all'])).toMatchObject({ runs: [] });
    const doctor = spawnSync('node', [CLI, 'doctor', '--json'], { cwd: ROOT, encoding: 'utf8', env });
    expect([0, 3]).toContain(doctor.status);
    expect(JSON.parse(doctor.stdout)).toMatchObject({
      passed: doctor.status === 0,
      checks: expect.any(Array),
      runtimes: { docker: { ready: doctor.status === 0 }, sim: { ready: true } },
    });
  });

  it('sweep answers with its answer and snake_case critical values; view of the sweep with its runs', async () => {
    const sweep = json(['sweep', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--delay', '10..30ms:10ms', '--no-plots']);
    expect(sweep).toMatchObject({ runs: 3, stopped: false, answer: { text: expect.stringMatching(/no collision/) } });
    expect(await viewJson(sweep.dir as string)).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
      sweep_dir: sweep.dir,
      mode: 'sweep',
      runs: 3,
    });
  });

  it('view prints one JSON line with its URL while it serves; a folder that is neither run nor sweep is a JSON error', async () => {
    const up = json(['up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim']);
    expect(await viewJson(up.run_dir as string)).toMatchObject({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/),
      run_dir: up.run_dir,
      mode: 'replay',
    });
    const neither = json(['view', work, '--no-open'], 2).error as Record<string, unknown>;
    expect(neither).toMatchObject({
      kind: 'user_input',
      exit_status: 2,
      message: expect.stringMatching(/neither a run folder .* nor a sweep folder/),
      hint: expect.stringMatching(/sweeps\/<sweep-id>/),
    });
  });

  it.skipIf(docker.skip)('images --check says whether the images are up to date, building nothing', () => {
    docker.assertPresent();
    const r = spawnSync('node', [CLI, 'images', '--check', '--json'], { cwd: ROOT, encoding: 'utf8', env });
    expect([0, 3]).toContain(r.status);
    const doc = JSON.parse(r.stdout) as { images: { role: string; up_to_date: boolean }[] };
    expect(doc.images.map((i) => i.role).sort()).toEqual(['simulator', 'vehicle']);
    expect(r.status === 0).toBe(doc.images.every((i) => i.up_to_date));
  });
});
