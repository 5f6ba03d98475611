/**
 * `cavsim up --hosts` for real: a head-on run whose two cars run on two local hosts
 * (scripts/local-hosts.sh: Docker engines in containers, over TLS), the simulator and ns-3 here.
 * Bad input (a missing hosts file, an engine that does not answer) is refused naming it, before
 * anything exists; the run over the hosts ends as the same run on one host; V2V crosses ns-3 both
 * ways through the tunnels; afterwards every host's links, rules and containers are as before.
 * Needs root, a running dockerd and ns-3; outside CI a missing one skips this file, in CI it fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopScenarioYaml } from '../../../bench/sim-bench.js';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { connectDocker } from '../../../src/host/docker/dockerode-port.js';
import { CONTROL_PORT } from '../../../src/ports.js';
import { HOST_TIMING, type HostTimingResult } from '../../../src/runtime/emulated/host-timing.js';
import { RUN_HOST } from '../../../src/runtime/emulated/remote-plan.js';
import { machineState, networkState } from '../../support/machine-state.js';
import { buildExampleImages, ownCodeImagesScenario, removeExampleImages } from '../../support/own-code/example-images.js';
import { dockerProblem, ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/local-hosts.sh');
const CLI = join(ROOT, 'dist/cli/main.js');
const real = requireReal('hosts/run-over-hosts.test.ts', rootProblem() ?? (await dockerProblem(connectDocker())) ?? ns3Problem());
const script = (...args: string[]) => spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8' });
const HOSTS = ['cavsim-host-1', 'cavsim-host-2'];
const onHost = (host: string) => (file: string, args: string[]) => {
  const r = spawnSync('docker', ['exec', host, file, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${host}: ${file} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const hostState = (host: string) => ({
  ...networkState(onHost(host)),
  containers: onHost(host)('docker', ['ps', '-a', '--format', '{{.Names}}']).trim(),
});

/** This machine's address on the local hosts' network (scripts/local-hosts.sh). */
const LOCAL_HOSTS_GATEWAY = '10.219.0.1';
/** A script for `node -e`: one TCP connection attempt, printing `open`, `timeout` or the error's code. */
const tcpTry = (address: string, port: number) =>
  `const s=require('net').connect({host:'${address}',port:${port},timeout:1500});` +
  "s.on('connect',()=>{console.log('open');process.exit(0)});s.on('timeout',()=>{console.log('timeout');process.exit(0)});s.on('error',(e)=>{console.log(e.code);process.exit(0)})";

const work = mkdtempSync(join(tmpdir(), 'cavsim-over-hosts-'));
const runsDir = join(work, 'runs');
/** head-on-brake with car1 also sending (it observes car0): emergency-brake messages both ways. */
function bothWaysScenario(): string {
  const text = readFileSync(join(ROOT, 'scenarios/head-on-brake.yaml'), 'utf8')
    .replaceAll('../maps/', `${join(ROOT, 'maps')}/`)
    .replace(
      '    apps:\n      - type: brake-receiver',
      '    observes: [car0]\n    apps:\n      - type: brake-receiver\n      - type: ttc-brake-sender\n        threshold: 700ms\n        to: car0\n        ttc: centre-distance',
    );
  const file = join(work, 'head-on-both-ways.yaml');
  writeFileSync(file, text);
  return file;
}

/** `cavsim up --hosts` (head-on both ways, 30 s) in a child process, once it says `[running]`; `out.text` keeps growing after. */
async function upUntilRunning(runId: string, hostsFile: string) {
  const child = spawn(
    'node',
    [CLI, 'up', bothWaysScenario(), '--set', 'duration=30s', '--runs-dir', runsDir, '--run-id', runId, '--hosts', hostsFile],
    { env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out = { text: '' };
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the run never started:\n${out.text}`)), 400_000);
    const onData = (d: Buffer) => {
      out.text += d.toString();
      if (out.text.includes('[running]')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
  return { child, exited, out };
}

describe.skipIf(real.skip)('cavsim up --hosts over two local hosts', () => {
  let hostsFile: string;
  let started = false;
  let machineBefore: ReturnType<typeof machineState>;
  let hostsBefore: Array<ReturnType<typeof hostState>>;

  beforeAll(() => {
    real.assertPresent();
    expect(script('list').stdout, 'local hosts are already started: run scripts/local-hosts.sh stop first').toBe('');
    machineBefore = machineState();
    const start = script('start', '2');
    started = true;
    expect(start.status, start.stderr).toBe(0);
    hostsFile = /^export CAVSIM_HOSTS=(\S+)$/m.exec(start.stdout)![1];
    hostsBefore = HOSTS.map(hostState);
  });

  afterAll(() => {
    if (started) script('stop');
  });

  it('refuses a missing hosts file and a host whose engine does not answer (exit 2, named), creating nothing', async () => {
    const file = bothWaysScenario();
    await expect(runScenarioEmulated(file, { runsDir, hostsFile: join(work, 'nope.yaml') })).rejects.toMatchObject({
      code: 'USER_INPUT',
      message: expect.stringContaining('nope.yaml'),
    });
    const dead = join(work, 'dead.yaml');
    const tls = join(hostsFile, '..', 'tls');
    writeFileSync(
      dead,
      `hosts:\n  - name: cvh-nobody\n    engine: tcp://127.0.0.1:9\n    tls: { ca: ${tls}/ca.pem, cert: ${tls}/cert.pem, key: ${tls}/key.pem }\n`,
    );
    await expect(runScenarioEmulated(file, { runsDir, hostsFile: dead })).rejects.toMatchObject({
      code: 'USER_INPUT',
      message: expect.stringMatching(/cvh-nobody \(tcp:\/\/127\.0\.0\.1:9\)/),
    });
    expect(() => readdirSync(runsDir)).toThrow();
    expect(HOSTS.map(hostState)).toEqual(hostsBefore);
  });

  it('cavsim doctor --hosts: each engine answers and is routed, the images not there yet (a note); a silent engine fails naming it', () => {
    const doctor = (file: string) => spawnSync('node', [CLI, 'doctor', '--json', '--hosts', file], { encoding: 'utf8' });
    const r = doctor(hostsFile);
    const checks = (JSON.parse(r.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string; advisory?: boolean }> }).checks;
    const host = (name: string) => checks.find((c) => c.name === name);
    for (const [i, name] of HOSTS.entries()) {
      expect(host(`Host ${name}`)).toMatchObject({
        ok: true,
        detail: `tcp://10.219.0.1${i + 1}:2376 answers; VXLAN from ${LOCAL_HOSTS_GATEWAY} to 10.219.0.1${i + 1}`,
      });
      // fresh hosts: the first run ships the images
      expect(host(`Host ${name} images`)).toMatchObject({
        ok: false,
        advisory: true,
        detail: expect.stringMatching(/cavsim\/vehicle:latest is missing: the first run ships them/),
      });
    }
    const dead = join(work, 'doctor-dead.yaml');
    const tls = join(hostsFile, '..', 'tls');
    writeFileSync(
      dead,
      `hosts:\n  - name: cvh-nobody\n    engine: tcp://127.0.0.1:9\n    tls: { ca: ${tls}/ca.pem, cert: ${tls}/cert.pem, key: ${tls}/key.pem }\n`,
    );
    const silent = doctor(dead);
    expect(silent.status).toBe(3);
    const nobody = (JSON.parse(silent.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> }).checks.find(
      (c) => c.name === 'Host cvh-nobody',
    );
    expect(nobody).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^its Docker engine at tcp:\/\/127\.0\.0\.1:9 does not answer: /),
    });
    expect(HOSTS.map(hostState)).toEqual(hostsBefore);
  });

  it('runs head-on with a car on each host: the verdict of one host, V2V both ways through ns-3, every host as before', async () => {
    const file = bothWaysScenario();
    const here = await runScenarioEmulated(file, { runsDir, runId: 'one-host' });
    const over = await runScenarioEmulated(file, { runsDir, runId: 'two-hosts', hostsFile });
    const plan = JSON.parse(readFileSync(join(over.runDir, 'plan.json'), 'utf8')) as {
      vehicles: Array<{ vehicle: string; host?: string }>;
    };
    expect(plan.vehicles.map((v) => [v.vehicle, v.host])).toEqual([
      ['car0', 'cavsim-host-1'],
      ['car1', 'cavsim-host-2'],
    ]);
    console.log(
      `[over-hosts] one host: ${here.summary.status} ${here.summary.reason ?? ''}; two hosts: ${over.summary.status} ${over.summary.reason ?? ''}`,
    );
    console.log(`[over-hosts] phases ms: ${JSON.stringify(over.phases)}`);
    // the verdict on the scenario's question: they stop apart on both
    for (const s of [here.summary, over.summary]) {
      expect(['completed', 'invalid']).toContain(s.status);
      expect(s.collision).toBe(false);
    }
    expect(over.summary.min_distance_m).toBeCloseTo(here.summary.min_distance_m!, 0);
    const rows = parse(readFileSync(join(over.runDir, 'v2v.csv'), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    const delivered = rows.filter((r) => r.outcome === 'delivered').map((r) => `${r.from}->${r.to}`);
    expect(new Set(delivered)).toEqual(new Set(['car0->car1', 'car1->car0']));
    expect(readFileSync(join(over.runDir, 'ns3.log'), 'utf8').length).toBeGreaterThan(0);
    // every car remote: the reference pair crosses both tunnels, and host 2 is measured by it
    const timing = (over.summary.timing as { hosts: HostTimingResult['figures'] }).hosts;
    expect(timing.reference).toEqual({ pair: 'car0<->car1', hosts: HOSTS });
    expect(timing.per_host).toEqual([expect.objectContaining({ host: HOSTS[1], pair: 'car0<->car1', added_delay_p50_ms: 0 })]);
    expect(over.leftovers).toBeUndefined();
    expect(HOSTS.map(hostState)).toEqual(hostsBefore);
    expect(networkState().iptables.join('\n')).not.toContain('cavsim:two-hosts');
  }, 600_000);

  it('runs an 8-car loop over the two hosts and this one: the verdict of one host, V2V across every pair of hosts, each tunnel’s delay and clock offset measured', async () => {
    const file = join(work, 'loop-8.yaml');
    writeFileSync(file, loopScenarioYaml(8, '10s', { apps: '[{ type: beacon, rate: 10Hz, size: 200B }]' }));
    // this machine's own engine as a third host: its cars stay here, so the reference pair has no tunnel in it
    const withHere = join(work, 'hosts-and-here.yaml');
    writeFileSync(
      withHere,
      `${readFileSync(hostsFile, 'utf8')
        .replaceAll(' tls/', ` ${dirname(hostsFile)}/tls/`)
        .trimEnd()}\n  - name: here\n    engine: unix:///var/run/docker.sock\n`,
    );
    const here = await runScenarioEmulated(file, { runsDir, runId: 'loop-one-host' });
    const over = await runScenarioEmulated(file, { runsDir, runId: 'loop-hosts', hostsFile: withHere });
    const plan = JSON.parse(readFileSync(join(over.runDir, 'plan.json'), 'utf8')) as { vehicles: Array<{ host?: string }> };
    expect(plan.vehicles.map((v) => v.host ?? 'here')).toEqual([...HOSTS, 'here', ...HOSTS, 'here', ...HOSTS]);
    console.log(
      `[over-hosts] loop, one host: ${here.summary.status} ${here.summary.reason ?? ''}; over hosts: ${over.summary.status} ${over.summary.reason ?? ''}`,
    );
    for (const s of [here.summary, over.summary]) {
      expect(['completed', 'invalid']).toContain(s.status);
      expect(s.collision).toBe(false);
    }
    expect(over.summary.min_distance_m).toBeCloseTo(here.summary.min_distance_m!, 0);
    const rows = parse(readFileSync(join(over.runDir, 'v2v.csv'), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    const hostOf = (car: string) => plan.vehicles[Number(car.slice(3))].host ?? 'here';
    const crossed = new Set(rows.filter((r) => r.outcome === 'delivered').map((r) => `${hostOf(r.from)}->${hostOf(r.to)}`));
    const everyPair = [...HOSTS, 'here'].flatMap((a) => [...HOSTS, 'here'].map((b) => `${a}->${b}`));
    expect([...crossed].sort()).toEqual(everyPair.sort());

    const timing = (over.summary.timing as { hosts: HostTimingResult['figures'] }).hosts;
    console.log(`[over-hosts] timing.hosts: ${JSON.stringify(timing)}`);
    expect(timing.reference).toEqual({ pair: 'car2<->car5', hosts: [RUN_HOST, RUN_HOST] });
    expect(timing.per_host.map((h) => [h.host, h.pair])).toEqual([
      ['cavsim-host-1', 'car2<->car0'],
      ['cavsim-host-2', 'car2<->car1'],
    ]);
    for (const h of timing.per_host) {
      expect(h.samples).toBeGreaterThanOrEqual(20);
      expect(h.added_delay_p50_ms).toBeLessThan(HOST_TIMING.addedDelayLimitMs);
      // one machine, one clock: whatever the estimate, nothing in it is certainly an offset
      expect(h.clock_offset_certain_ms).toBe(0);
    }
    expect(over.leftovers).toBeUndefined();
    expect(HOSTS.map(hostState)).toEqual(hostsBefore);
  }, 900_000);

  it("runs own-code-head-on with each car's own image on its own host, its V2V relay beside it: the images shipped, the verdict of one host, the warning through ns-3, every host as before", async () => {
    const images = buildExampleImages();
    try {
      const file = ownCodeImagesScenario(join(work, 'own-code-images.yaml'), images);
      const here = await runScenarioEmulated(file, { runsDir, runId: 'own-one-host' });
      const over = await runScenarioEmulated(file, { runsDir, runId: 'own-two-hosts', hostsFile });
      const plan = JSON.parse(readFileSync(join(over.runDir, 'plan.json'), 'utf8')) as {
        vehicles: Array<{ vehicle: string; host?: string; image: string }>;
        v2vRelays: Array<{ vehicle: string; host?: string }>;
      };
      expect(plan.vehicles.map((v) => [v.vehicle, v.host, v.image])).toEqual([
        ['car0', HOSTS[0], images.python],
        ['car1', HOSTS[1], images.node],
      ]);
      expect(plan.v2vRelays.map((r) => [r.vehicle, r.host])).toEqual([
        ['car0', HOSTS[0]],
        ['car1', HOSTS[1]],
      ]);
      console.log(
        `[over-hosts] own code, one host: ${here.summary.status} ${here.summary.reason ?? ''}; two hosts: ${over.summary.status} ${over.summary.reason ?? ''}`,
      );
      for (const s of [here.summary, over.summary]) {
        expect(['completed', 'invalid']).toContain(s.status);
        if (s.status === 'invalid') expect(s.reason).toMatch(/late/);
        expect(s.collision).toBe(false);
      }
      expect(over.summary.min_distance_m).toBeCloseTo(here.summary.min_distance_m!, 0);
      const rows = parse(readFileSync(join(over.runDir, 'v2v.csv'), 'utf8'), { columns: true }) as Array<Record<string, string>>;
      expect(rows).toEqual([expect.objectContaining({ from: 'car0', to: 'car1', type: 'emergency-brake', outcome: 'delivered' })]);
      // each image is on its car's host now, the same build as here
      const imageId = (host: string | undefined, image: string) =>
        spawnSync('docker', [...(host ? ['exec', host, 'docker'] : []), 'image', 'inspect', '-f', '{{.Id}}', image], {
          encoding: 'utf8',
        }).stdout.trim();
      expect(imageId(HOSTS[0], images.python)).toBe(imageId(undefined, images.python));
      expect(imageId(HOSTS[1], images.node)).toBe(imageId(undefined, images.node));
      expect(over.leftovers).toBeUndefined();
      expect(HOSTS.map(hostState)).toEqual(hostsBefore);
      expect(networkState().iptables.join('\n')).not.toContain('cavsim:own-two-hosts');
    } finally {
      removeExampleImages(images);
    }
  }, 900_000);

  it("a remote car's namespace reaches the simulator and nothing else: not its host's engine, not the run's host, not the other host", async () => {
    // a port open on every address of this machine, which host 1 itself reaches
    const server = createServer((socket) => socket.end());
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
    const port = (server.address() as AddressInfo).port;
    const { child, exited } = await upUntilRunning('reach', hostsFile);
    try {
      const plan = JSON.parse(readFileSync(join(runsDir, 'reach', 'plan.json'), 'utf8')) as {
        simulator: { ip: string };
        vehicles: Array<{ name: string; host?: string }>;
      };
      const car0 = plan.vehicles[0];
      expect(car0.host).toBe(HOSTS[0]);
      const gateway = plan.simulator.ip.replace(/\.2$/, '.1');
      const fromHost1 = spawnSync(
        'docker',
        ['exec', HOSTS[0], 'timeout', '3', 'bash', '-c', `exec 3<>/dev/tcp/${LOCAL_HOSTS_GATEWAY}/${port} && echo open`],
        {
          encoding: 'utf8',
        },
      );
      expect(fromHost1.stdout.trim(), 'host 1 itself reaches the port (the control)').toBe('open');
      const fromCar0 = (address: string, to: number) =>
        spawnSync('docker', ['exec', HOSTS[0], 'docker', 'exec', car0.name, 'node', '-e', tcpTry(address, to)], {
          encoding: 'utf8',
        }).stdout.trim();
      expect(fromCar0(plan.simulator.ip, CONTROL_PORT)).toBe('open');
      const tried = Object.fromEntries(
        [
          [gateway, port],
          [LOCAL_HOSTS_GATEWAY, port],
          ['10.219.0.11', 2376],
          ['10.219.0.12', 2376],
        ].map(([address, to]) => [`${address}:${to}`, fromCar0(String(address), Number(to))]),
      );
      console.log(`[over-hosts] from car0's namespace on ${HOSTS[0]}: ${JSON.stringify(tried)}`);
      for (const [target, outcome] of Object.entries(tried)) expect(outcome, target).toMatch(/^(timeout|E[A-Z]+)$/);
    } finally {
      child.kill('SIGINT');
      await exited;
      server.close();
    }
    expect(HOSTS.map(hostState)).toEqual(hostsBefore);
    expect(networkState().iptables.join('\n')).not.toContain('cavsim:reach');
  }, 600_000);

  it('after kill -9 of cavsim up --hosts mid-run, cavsim teardown restores every host; a host that does not answer is named and its entries kept', async () => {
    const { child, exited } = await upUntilRunning('killed', hostsFile);
    expect(HOSTS.map(hostState)).not.toEqual(hostsBefore);
    child.kill('SIGKILL');
    await exited;

    // cavsim-host-2's engine does not answer: host 1 and this machine are restored, host 2's entries stay
    spawnSync('docker', ['pause', HOSTS[1]]);
    let first: ReturnType<typeof spawnSync>;
    try {
      first = spawnSync('node', [CLI, 'teardown', '--run', 'killed'], { encoding: 'utf8' });
    } finally {
      spawnSync('docker', ['unpause', HOSTS[1]]);
    }
    expect(first.status, String(first.stderr)).not.toBe(0);
    expect(String(first.stdout)).toMatch(/cavsim-host-2: its Docker engine does not answer/);
    expect(hostState(HOSTS[0])).toEqual(hostsBefore[0]);
    expect(hostState(HOSTS[1])).not.toEqual(hostsBefore[1]);

    const second = spawnSync('node', [CLI, 'teardown', '--run', 'killed'], { encoding: 'utf8' });
    expect(second.status, `${second.stdout}${second.stderr}`).toBe(0);
    expect(second.stdout).toMatch(/killed: undid \d+ resource/);
    expect(HOSTS.map(hostState)).toEqual(hostsBefore);
    expect(networkState().iptables.join('\n')).not.toContain('cavsim:killed');
  }, 600_000);

  it('a host that stops answering mid-run fails the run naming it; the rest is undone, and teardown restores it once it is back', async () => {
    const { exited, out } = await upUntilRunning('paused', hostsFile);
    spawnSync('docker', ['pause', HOSTS[1]]);
    let code: number | null;
    try {
      code = await exited;
    } finally {
      spawnSync('docker', ['unpause', HOSTS[1]]);
    }
    const summary = JSON.parse(readFileSync(join(runsDir, 'paused', 'summary.json'), 'utf8')) as { status: string; reason: string };
    console.log(`[over-hosts] paused host: exit ${code}, ${summary.status}: ${summary.reason}`);
    expect(summary.status).toBe('failed');
    expect(summary.reason).toMatch(/host cavsim-host-2 stopped answering: its Docker engine was silent/);
    expect(code).toBe(7); // the teardown left host 2's entries, and said how to undo them
    expect(out.text).toMatch(/cavsim teardown --run paused/);
    expect(hostState(HOSTS[0])).toEqual(hostsBefore[0]);
    const again = spawnSync('node', [CLI, 'teardown', '--run', 'paused'], { encoding: 'utf8' });
    expect(again.status, `${again.stdout}${again.stderr}`).toBe(0);
    expect(HOSTS.map(hostState)).toEqual(hostsBefore);
    expect(networkState().iptables.join('\n')).not.toContain('cavsim:paused');
  }, 600_000);

  it('stop leaves this machine as it was', () => {
    const stop = script('stop');
    expect(stop.status, stop.stderr).toBe(0);
    started = false;
    expect(machineState()).toEqual(machineBefore);
  });
});
