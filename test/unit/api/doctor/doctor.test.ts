import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctorPassed, runDoctor, runtimeReadiness } from '../../../../src/api/doctor/doctor.js';
import { findLeftoverRuns } from '../../../../src/api/doctor/host-ports.js';
import { tapCreatorPathsIn } from '../../../../src/api/doctor/tap-creator.js';
import type { DoctorPorts } from '../../../../src/api/doctor/types.js';
import { EnvironmentError } from '../../../../src/errors.js';
import type { ImageInfo } from '../../../../src/host/docker/docker-port.js';
import type { CommandResult } from '../../../../src/host/exec/command-runner.js';
import { Journal } from '../../../../src/host/journal/journal.js';
import { scratchDir } from '../../../support/scratch-dir.js';

const TAP_PATH = '/build/ns3-QJPJQL/ns3-3.37/ns-3.37/build/src/tap-bridge/ns3.37-tap-creator';
const LIBRARY = Buffer.concat([
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]),
  Buffer.from(`\0${TAP_PATH}\0Enable verbose output from tap-creator child process\0ns3.37-tap-creator\0`, 'latin1'),
]);

/** A healthy Debian 12 host as the checks see it; each test breaks one thing. */
function healthyHost(overrides: Partial<DoctorPorts> = {}) {
  const files = new Set(['/dev/net/tun', '/usr/lib/x86_64-linux-gnu/libns3-tap-bridge.so', TAP_PATH]);
  const images = new Set(['cavsim/base:bookworm', 'cavsim/simulator:latest', 'cavsim/vehicle:latest']);
  const failing = new Set<string>();
  const ran: string[] = [];
  const outputs: Record<string, string> = {
    'pkg-config --modversion ns3-core ns3-network ns3-csma ns3-wifi ns3-mobility ns3-propagation ns3-tap-bridge':
      '3.37\n3.37\n3.37\n3.37\n3.37\n3.37\n3.37',
    'pkg-config --variable=libdir ns3-tap-bridge': '/usr/lib/x86_64-linux-gnu',
    'iptables --version': 'iptables v1.8.9 (nf_tables)',
    'g++ --version': 'g++ (Debian 12.2.0-14) 12.2.0\nCopyright',
  };
  let engineUp = true;
  const ports: DoctorPorts = {
    docker: {
      ping: async () => {
        if (!engineUp) throw new EnvironmentError('Docker engine not reachable: connect ENOENT /var/run/docker.sock', 'x');
      },
      inspectImage: async (tag) =>
        images.has(tag) ? ({ id: `sha256:${'a'.repeat(64)}`, tags: [tag], labels: {}, createdAt: '' } satisfies ImageInfo) : undefined,
    },
    commands: {
      run: async (argv, opts = {}): Promise<CommandResult> => {
        const key = argv.join(' ');
        ran.push(key);
        const exitCode = failing.has(argv[0]) || failing.has(key) ? 1 : 0;
        if (exitCode !== 0 && !opts.allowFailure) throw new Error(`${key} failed`);
        return { stdout: exitCode === 0 ? (outputs[key] ?? '') : '', stderr: exitCode === 0 ? '' : `${argv[0]}: not found`, exitCode };
      },
    },
    fileExists: async (path) => files.has(path),
    readFile: async () => LIBRARY,
    uid: 0,
    leftoverRuns: async () => [],
    fastProcessStart: async () => undefined,
    ...overrides,
  };
  return { ports, files, images, failing, ran, stopEngine: () => (engineUp = false) };
}

const byName = async (ports: DoctorPorts) => Object.fromEntries((await runDoctor(ports)).map((r) => [r.name, r]));

describe('runDoctor', () => {
  it('passes every check on a healthy host, in a stable order', async () => {
    const results = await runDoctor(healthyHost().ports);
    expect(results.map((r) => [r.name, r.ok])).toEqual([
      ['Docker engine', true],
      ['Base image', true],
      ['cavsim images', true],
      ['Privileges', true],
      ['iptables', true],
      ['TUN device', true],
      ['ns-3 development files', true],
      ['TapBridge tap-creator helper', true],
      ['Fast ns-3 start (posix_spawn)', true],
      ['Leftovers from earlier runs', true],
    ]);
    expect(results.find((r) => r.name === 'ns-3 development files')?.detail).toContain('ns-3 3.37');
    expect(doctorPassed(results)).toBe(true);
  });

  it("falls back to Node's spawn without failing when the posix_spawn addon cannot be built", async () => {
    const results = await runDoctor(
      healthyHost({ fastProcessStart: async () => "Node's headers are not at /usr/include/node (node_api.h)" }).ports,
    );
    const check = results.find((r) => r.name === 'Fast ns-3 start (posix_spawn)');
    expect(check).toMatchObject({ ok: false, advisory: true });
    expect(check?.detail).toContain('/usr/include/node');
    expect(doctorPassed(results)).toBe(true);
  });

  it('reports an unreachable engine once and does not probe images', async () => {
    const host = healthyHost();
    host.stopEngine();
    const results = await byName(host.ports);
    expect(results['Docker engine']).toMatchObject({ ok: false, fix: 'scripts/setup-docker.sh' });
    expect(results['Docker engine'].detail).toContain('ENOENT');
    expect(results['Base image']).toMatchObject({ ok: false, detail: 'not checked: Docker engine not reachable' });
    expect(results.iptables.ok).toBe(true);
  });

  it('points to the base image script, and marks missing cavsim images as advisory', async () => {
    const host = healthyHost();
    host.images.clear();
    const results = await runDoctor(host.ports);
    const base = results.find((r) => r.name === 'Base image')!;
    expect(base).toMatchObject({ ok: false });
    expect(base.fix).toContain('scripts/build-base-image.sh');
    expect(results.find((r) => r.name === 'cavsim images')).toMatchObject({ ok: false, advisory: true });
    expect(doctorPassed(results)).toBe(false);

    host.images.add('cavsim/base:bookworm');
    expect(doctorPassed(await runDoctor(host.ports))).toBe(true);
  });

  it('gives the exact symlink when the tap-creator path compiled into libns3 is missing, with sudo only when not root', async () => {
    const host = healthyHost({ uid: 1000 });
    host.files.delete(TAP_PATH);
    const result = (await byName(host.ports))['TapBridge tap-creator helper'];
    expect(result.ok).toBe(false);
    expect(result.detail).toContain(TAP_PATH);
    expect(result.fix).toBe(
      `sudo mkdir -p '/build/ns3-QJPJQL/ns3-3.37/ns-3.37/build/src/tap-bridge' && sudo ln -sf '/usr/libexec/ns3/ns3.37-tap-creator' '${TAP_PATH}'`,
    );
    const asRoot = healthyHost({ uid: 0 });
    asRoot.files.delete(TAP_PATH);
    expect((await byName(asRoot.ports))['TapBridge tap-creator helper'].fix).toBe(
      `mkdir -p '/build/ns3-QJPJQL/ns3-3.37/ns-3.37/build/src/tap-bridge' && ln -sf '/usr/libexec/ns3/ns3.37-tap-creator' '${TAP_PATH}'`,
    );
  });

  it('asks for the ns-3 packages when pkg-config does not know ns-3, and for libgsl separately', async () => {
    const host = healthyHost();
    host.failing.add('pkg-config --exists gsl');
    expect((await byName(host.ports))['ns-3 development files']).toMatchObject({ ok: false, fix: 'apt-get install -y libgsl-dev' });
    host.failing.add('pkg-config');
    const results = await byName(host.ports);
    expect(results['ns-3 development files'].fix).toContain('libns3-dev');
    expect(results['TapBridge tap-creator helper'].fix).toContain('libns3-dev');
  });

  it('reports missing iptables, tun and privileges with fixes', async () => {
    const host = healthyHost({ uid: 1000 });
    host.failing.add('iptables');
    host.failing.add('sudo');
    host.files.delete('/dev/net/tun');
    const results = await byName(host.ports);
    expect(results.iptables).toMatchObject({ ok: false, fix: 'sudo apt-get install -y iptables' });
    expect(results['TUN device']).toMatchObject({ ok: false });
    expect(results.Privileges).toMatchObject({ ok: false, detail: 'uid 1000, and sudo asks for a password' });
  });

  it('finds iptables in /usr/sbin for a normal user, whose PATH does not have it', async () => {
    const host = healthyHost({ uid: 1000 });
    host.failing.add('iptables');
    host.files.add('/usr/sbin/iptables');
    const results = await byName(host.ports);
    expect(results.iptables).toMatchObject({ ok: true, detail: expect.stringContaining('/usr/sbin/iptables') });
  });

  it('accepts passwordless sudo', async () => {
    const host = healthyHost({ uid: 1000 });
    expect((await byName(host.ports)).Privileges).toMatchObject({ ok: true, detail: 'uid 1000 with passwordless sudo' });
    expect(host.ran).toContain('sudo -n true');
  });

  it('says what each runtime can do: a host without Docker or root still runs the simulated runtime, on ns-3 when it is there', async () => {
    expect(runtimeReadiness(await runDoctor(healthyHost().ports))).toEqual({
      docker: { ready: true, blocking: [] },
      sim: { ready: true, engine: 'ns3', channels: ['csma', 'latency', 'wifi-80211p', 'lte-v2x', 'nr-v2x'] },
    });
    const light = healthyHost({ uid: 1000 });
    light.stopEngine();
    light.failing.add('sudo');
    light.failing.add('pkg-config');
    const readiness = runtimeReadiness(await runDoctor(light.ports));
    expect(readiness.docker).toEqual({
      ready: false,
      blocking: expect.arrayContaining(['Docker engine', 'Privileges', 'ns-3 development files']),
    });
    expect(readiness.sim).toEqual({ ready: true, engine: 'builtin', channels: ['csma', 'latency', 'wifi-80211p', 'lte-v2x', 'nr-v2x'] });
  });

  it('names each leftover run and how to tear it down', async () => {
    const host = healthyHost({
      leftoverRuns: async () => [{ runId: 'head-on-1', journalPath: '/x/runs/head-on-1/journal.jsonl', outstanding: 3 }],
    });
    expect((await byName(host.ports))['Leftovers from earlier runs']).toMatchObject({
      ok: false,
      detail: 'head-on-1: 3 resource(s) not undone',
      fix: 'cavsim teardown --run head-on-1',
    });
  });

  it('turns a check that throws into a failed result instead of throwing', async () => {
    const host = healthyHost({ leftoverRuns: async () => Promise.reject(new Error('EACCES: runs/')) });
    expect((await byName(host.ports))['Leftovers from earlier runs']).toMatchObject({ ok: false, detail: 'check failed: EACCES: runs/' });
  });
});

describe('tapCreatorPathsIn', () => {
  it('finds absolute tap-creator paths among the strings of a library', () => {
    expect(tapCreatorPathsIn(LIBRARY)).toEqual([TAP_PATH]);
    expect(tapCreatorPathsIn(Buffer.from('no helper here\0/usr/lib/libfoo.so\0'))).toEqual([]);
  });
});

describe('findLeftoverRuns', () => {
  it('lists runs whose journal still has outstanding entries', async () => {
    const runs = scratchDir('cavsim-runs-');
    const open = Journal.open(join(runs, 'run-b', 'journal.jsonl'));
    open.record('docker-network', 'cavsim-run-b-ctl', { name: 'cavsim-run-b-ctl', runId: 'run-b' });
    open.record('docker-container', 'cavsim-run-b-sim', { name: 'cavsim-run-b-sim', runId: 'run-b' });
    const closed = Journal.open(join(runs, 'run-a', 'journal.jsonl'));
    closed.markUndone(closed.record('docker-network', 'n', { name: 'n', runId: 'run-a' }).seq);
    mkdirSync(join(runs, 'run-c'));
    writeFileSync(join(runs, 'notes.txt'), '');
    expect(findLeftoverRuns(runs)).toEqual([{ runId: 'run-b', journalPath: join(runs, 'run-b', 'journal.jsonl'), outstanding: 2 }]);
    expect(findLeftoverRuns(join(runs, 'missing'))).toEqual([]);
  });
});
