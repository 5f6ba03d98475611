import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-cli-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

const cavsim = (...args: string[]) =>
  spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CAVSIM_RUNS_DIR: runsDir, CI: 'true' } });

describe('cavsim CLI', () => {
  it('--help lists the commands', () => {
    const r = cavsim('--help');
    expect(r.status).toBe(0);
    for (const c of ['validate', 'up']) expect(r.stdout).toContain(c);
  });

  // Cluster login nodes often cap address space; Docker's client (ssh2's WebAssembly) cannot start
  // under such a cap, so commands that do not need Docker must not load it.
  it('validate and a simulated run work under `ulimit -v 4000000`, as on a cluster login node', () => {
    const capped = (args: string) =>
      spawnSync('bash', ['-c', `ulimit -v 4000000 && exec node ${CLI} ${args}`], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, CAVSIM_RUNS_DIR: runsDir, CI: 'true' },
      });
    const validate = capped('validate scenarios/head-on-brake.yaml');
    expect(validate.status, validate.stderr).toBe(0);
    const up = capped('up scenarios/head-on-brake.yaml --runtime sim --json');
    expect(up.status, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout).status).toBe('completed');
  });

  it('validate accepts the shipped scenario', () => {
    const r = cavsim('validate', 'scenarios/head-on-brake.yaml');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('valid (2 vehicles, 5 s, csma, delay 10 ms, 100Mbps)');
  });

  it('a bad scenario exits 2, lists every problem with its line, and writes nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-bad-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      `name: bad\nmap: ${join(ROOT, 'maps/corridor.yaml')}\nduration: 5\nvehicles:\n  - name: car0\n    start: { x: 0, y: -1, spead: 3 }\n`,
    );
    const before = readdirSync(runsDir).length;
    const r = cavsim('up', file, '--runtime', 'sim');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`error: ${file} is not a valid scenario`);
    expect(r.stderr).toContain('duration (line 3): "5" has no unit; write it like "10ms"');
    expect(r.stderr).toContain('vehicles.car0.start.spead (line 6): unknown field "spead"; did you mean "speed"?');
    expect(readdirSync(runsDir).length).toBe(before);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a bad flag exits 2', () => {
    expect(cavsim('up', 'scenarios/head-on-brake.yaml', '--runtime', 'moon').status).toBe(2);
    expect(cavsim('up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--set', 'network.delay=fast').status).toBe(2);
  });

  it('up --runtime sim --json prints the summary and writes the run folder', () => {
    const r = cavsim('up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--set', 'network.delay=300ms', '--json');
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ status: 'completed', runtime: 'sim', collision: true });
    expect(existsSync(join(runsDir, summary.run_id, 'summary.json'))).toBe(true);
  });

  it('up without --json prints a readable summary', () => {
    const r = cavsim('up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/collision\s+no/);
    expect(r.stdout).toMatch(/min TTC\s+0\.\d+ s/);
  });
});
