import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/** `cavsim plan --hosts`: the plan with each car on the host `cavsim up --hosts` would give it; the file checked, no engine asked. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-plan-hosts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const env = { ...process.env, CAVSIM_RUNS_DIR: join(work, 'runs'), CI: 'true' };
const cavsim = (args: string[], extraEnv: Record<string, string> = {}) =>
  spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...env, ...extraEnv } });

for (const pem of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(work, pem), 'not read by plan\n');
/** Two lab PCs nobody listens on (plan asks no engine). */
const hostsFile = join(work, 'hosts.yaml');
writeFileSync(
  hostsFile,
  ['lab-1', 'lab-2']
    .map(
      (name, i) => `  - name: ${name}\n    engine: tcp://192.0.2.${11 + i}:2376\n    tls: { ca: ca.pem, cert: cert.pem, key: key.pem }\n`,
    )
    .join('')
    .replace(/^/, 'hosts:\n'),
);

describe('cavsim plan --hosts', () => {
  it('places each car on the host cavsim up would (own code too), says so on stderr, and creates nothing', () => {
    const r = cavsim(['plan', 'scenarios/own-code-head-on.yaml', '--hosts', hostsFile]);
    expect(r.status, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as {
      vehicles: Array<{ vehicle: string; host?: string }>;
      v2vRelays: Array<{ vehicle: string; host?: string }>;
    };
    expect(plan.vehicles.map((v) => [v.vehicle, v.host])).toEqual([
      ['car0', 'lab-1'],
      ['car1', 'lab-2'],
    ]);
    expect(plan.v2vRelays.map((v) => [v.vehicle, v.host])).toEqual([
      ['car0', 'lab-1'],
      ['car1', 'lab-2'],
    ]);
    expect(r.stderr).toContain('hosts: car0 on lab-1; car1 on lab-2');
    // $CAVSIM_HOSTS stands in for the flag, as for cavsim up
    const fromEnv = cavsim(['plan', 'scenarios/head-on-brake.yaml'], { CAVSIM_HOSTS: hostsFile });
    expect(fromEnv.status, fromEnv.stderr).toBe(0);
    expect(JSON.parse(fromEnv.stdout).vehicles.map((v: { host?: string }) => v.host)).toEqual(['lab-1', 'lab-2']);
    expect(() => readdirSync(join(work, 'runs'))).toThrow();
  });

  it('without a hosts file every car stays here; a bad one exits 2 naming its field and line', () => {
    const here = cavsim(['plan', 'scenarios/head-on-brake.yaml']);
    expect(here.status, here.stderr).toBe(0);
    expect(JSON.parse(here.stdout).vehicles.map((v: { host?: string }) => v.host)).toEqual([undefined, undefined]);
    const bad = join(work, 'bad.yaml');
    writeFileSync(bad, 'hosts:\n  - name: lab-1\n    engine: tcp://192.0.2.11:2376\n');
    const r = cavsim(['plan', 'scenarios/head-on-brake.yaml', '--hosts', bad]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml is not a valid hosts file/);
    expect(r.stderr).toMatch(/hosts\[0\]\.\S* \(line \d+\)/);
    expect(r.stdout).toBe('');
  });
});
