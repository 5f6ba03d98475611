import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { emulatedHostState } from './host-state.js';
import { CLI, emulatedE2e, ROOT } from './support/e2e.js';
import { startLiveRun } from './support/live-run.js';

/**
 * A vehicle image's code runs from the first instant of its container's life. Here car1's image
 * tries, for its first 2.5 s, to reach the host over the control network (TCP and UDP to the
 * gateway, where this test listens) before it starts driving. The rules of its namespace must
 * already hold: nothing arrives, and the run is the ordinary head-on run.
 */
const { runsDir, real } = await emulatedE2e('startup-window');
const IMAGE = `cavsim-test/startup-probe:${process.pid}-${randomBytes(3).toString('hex')}`;
const buildDir = mkdtempSync(join(tmpdir(), 'cavsim-probe-image-'));

afterAll(() => {
  spawnSync('docker', ['image', 'rm', IMAGE], { encoding: 'utf8' });
  rmSync(buildDir, { recursive: true, force: true });
});

function mustRun(argv: string[]) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', cwd: ROOT });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}):\n${r.stderr}`);
}

function scenario(port: number): string {
  const vehicle = '/opt/cavsim/examples/node-vehicle/vehicle.mjs';
  const text = readFileSync(join(ROOT, 'scenarios/own-code-head-on.yaml'), 'utf8')
    .replace('map: ../maps/corridor.yaml', `map: ${join(ROOT, 'maps/corridor.yaml')}`)
    .replace(
      /command: \[python3, -u, \.\.\/containers\/examples\/python-vehicle\/vehicle\.py, .*\]/,
      `image: ${IMAGE}\n    command: [node, ${vehicle}, --speed, "10", --ttc, "0.7", --warn, car1]`,
    )
    .replace(
      /command: \[node, \.\.\/containers\/examples\/node-vehicle\/vehicle\.mjs, (.*)\]/,
      `image: ${IMAGE}\n    command: [sh, -c, "node /opt/startup-probe.mjs ${port} && exec node ${vehicle} --speed 10"]`,
    );
  const file = join(buildDir, 'startup-window.yaml');
  writeFileSync(file, text);
  return file;
}

describe.skipIf(real.skip)('firewall rules before any vehicle code runs (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  const reached: string[] = [];
  let tcp: Server;
  let udp: Socket;
  let port: number;
  beforeAll(async () => {
    real.assertPresent();
    mustRun(['node', CLI, 'images']);
    copyFileSync(join(ROOT, 'containers/examples/node-vehicle/vehicle.mjs'), join(buildDir, 'vehicle.mjs'));
    copyFileSync(join(ROOT, 'test/integration/emulated/fixtures/startup-probe.mjs'), join(buildDir, 'startup-probe.mjs'));
    writeFileSync(
      join(buildDir, 'Dockerfile'),
      'FROM cavsim/vehicle:latest\nCOPY vehicle.mjs /opt/cavsim/examples/node-vehicle/vehicle.mjs\nCOPY startup-probe.mjs /opt/startup-probe.mjs\n',
    );
    mustRun(['docker', 'build', '-q', '-t', IMAGE, buildDir]);
    tcp = createServer((s) => {
      reached.push(`tcp from ${s.remoteAddress}`);
      s.destroy();
    });
    await new Promise<void>((r) => tcp.listen(0, '0.0.0.0', r));
    port = (tcp.address() as { port: number }).port;
    udp = createSocket('udp4');
    udp.on('message', (_m, from) => reached.push(`udp from ${from.address}`));
    await new Promise<void>((r) => udp.bind(port, '0.0.0.0', r));
    before = emulatedHostState();
  });
  afterAll(() => {
    tcp?.close();
    udp?.close();
  });

  it("car1's image reaches nothing on the host in its first seconds, and the run is unaffected", async () => {
    const run = startLiveRun(scenario(port), { runsDir });
    run.running.catch(() => {});
    const { summary } = await run.outcome;
    const log = readFileSync(join(run.runDir, 'logs', `${run.plan().vehicles[1].name}.log`), 'utf8');
    const probe = JSON.parse(/startup-probe (\{.*\})/.exec(log)?.[1] ?? 'null') as {
      attempts: number;
      tcpConnected: number;
      udpSent: number;
      errors: Record<string, number>;
    } | null;
    console.log(`[startup-window] ${JSON.stringify(probe)}; status ${summary.status}: ${summary.reason}`);
    expect(probe, log).not.toBeNull();
    expect(probe!.attempts).toBeGreaterThan(5);
    expect(probe).toMatchObject({ tcpConnected: 0, udpSent: 0 });
    expect(reached).toEqual([]);
    // unaffected: the ordinary head-on verdict; a loaded machine may make it late, and nothing else
    expect(['completed', 'invalid'], summary.reason).toContain(summary.status);
    if (summary.status === 'invalid') expect(summary.reason).toMatch(/late/);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });
});
