import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { registerActiveRun, unregisterActiveRun } from '../../src/run/active-runs.js';

/** Exit statuses a script can rely on, one per outcome, and output that survives a closed reader. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-exit-'));
const stateDir = mkdtempSync(join(tmpdir(), 'cavsim-exit-state-'));
afterAll(() => {
  rmSync(runsDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});
const env = { ...process.env, CAVSIM_RUNS_DIR: runsDir, CAVSIM_STATE_DIR: stateDir, CI: 'true' };
const cavsim = (...args: string[]) => spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env });

describe('cavsim exit statuses', () => {
  it('--help documents every exit status', () => {
    const r = cavsim('--help');
    expect(r.status).toBe(0);
    for (const line of [
      /^ {2}0 +the run/m,
      /^ {2}2 +bad input/m,
      /^ {2}3 +the environment/m,
      /^ {2}4 +a command/m,
      /^ {2}5 +the run failed/m,
      /^ {2}6 +the run finished but is invalid/m,
      /^ {2}130 +interrupted/m,
      /^ {2}70 +a bug/m,
    ])
      expect(r.stdout).toMatch(line);
  });

  it('bad flags exit 2 and name the fix', () => {
    // with a run holding resources, teardown must be told which
    registerActiveRun('held-run', join(runsDir, 'held-run', 'journal.jsonl'), stateDir);
    const teardown = cavsim('teardown');
    expect(teardown.status).toBe(2);
    expect(teardown.stderr).toMatch(/--run <id> or --all/);
    expect(teardown.stderr).toMatch(/runs holding resources: held-run/);
    unregisterActiveRun('held-run', stateDir);
    const up = cavsim('up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--run-id', 'no spaces allowed');
    expect(up.status).toBe(2);
    expect(up.stderr).toMatch(/--run-id: "no spaces allowed" is not a run id/);
    const keep = cavsim('up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--keep');
    expect(keep.status).toBe(2);
    expect(keep.stderr).toMatch(/--keep applies to emulated runs only/);
  });

  it('teardown with nothing held and no arguments has nothing to undo: exit 0', () => {
    const r = cavsim('teardown');
    expect([r.status, r.stdout]).toEqual([0, 'nothing to undo: no run holds resources\n']);
    const json = cavsim('teardown', '--json');
    expect([json.status, JSON.parse(json.stdout)]).toEqual([0, { runs: [], live: [] }]);
  });

  it('a completed run exits 0 and --json carries its status and folder', () => {
    const r = cavsim('up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--json');
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.status).toBe('completed');
    expect(readdirSync(summary.run_dir)).toContain('summary.json');
  });

  it('JSON larger than a pipe holds (64 KiB) reaches a slow reader whole', () => {
    // The reader starts after cavsim has written everything: the pipe is full when cavsim is done.
    // The resolved platoon scenario (every waypoint) is several pipes' worth.
    const r = spawnSync('sh', ['-c', `node '${CLI}' validate scenarios/platoon-cacc.yaml --json | (sleep 1; cat)`], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(4 * 65536);
    expect(JSON.parse(r.stdout).name).toBe('platoon-cacc');
  });

  it('Ctrl-C exits 130; the summary says interrupted, with the time simulated and a non-negative wall time', async () => {
    const before = new Set(readdirSync(runsDir));
    const child = spawn('node', [CLI, 'up', 'scenarios/loop-pure-pursuit.yaml', '--runtime', 'sim', '--json', '--set', 'duration=3600s'], {
      cwd: ROOT,
      env,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    // Interrupt once the run is under way (its folder exists), however slow the machine is.
    while (!readdirSync(runsDir).some((d) => !before.has(d))) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    const status = await new Promise<number | null>((r) => child.once('exit', r));
    expect(status).toBe(130);
    const summary = JSON.parse(out);
    expect(summary.status).toBe('interrupted');
    expect(summary.reason).toMatch(/^stopped at t=\d+\.\d\d s before the scenario's 3600 s/);
    expect(summary.sim_time_s).toBeGreaterThan(0);
    expect(summary.wall_time_s).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(summary.run_dir, 'summary.json'), 'utf8')).status).toBe('interrupted');
  });

  it('summary and status answer --json too', () => {
    const up = JSON.parse(cavsim('up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--json').stdout);
    const summary = cavsim('summary', up.run_dir, '--json');
    expect(summary.status, summary.stderr).toBe(0);
    expect(JSON.parse(summary.stdout)).toMatchObject({
      run_id: up.run_id,
      status: 'completed',
      min_distance_m: up.min_distance_m,
      run_dir: up.run_dir,
    });
    const status = cavsim('status', '--json');
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({ runs: [] });
  });

  it('a reader that goes away (`cavsim status | head -0`) is not an error', async () => {
    const child = spawn('node', [CLI, 'status'], { cwd: ROOT, env });
    child.stdout.destroy();
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const status = await new Promise<number | null>((r) => child.once('exit', r));
    expect(err).not.toMatch(/EPIPE|Error/);
    expect(status).toBe(0);
  });
});
