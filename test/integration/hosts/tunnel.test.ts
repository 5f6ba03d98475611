/**
 * The VXLAN tunnel of one remote car, for real, between this machine (the run's host) and a local
 * host (scripts/local-hosts.sh: a Docker engine in a container, reached over TLS): the hosts file's
 * DockerPorts and pingHosts, the base image shipped into the host by docker save -> load, then
 * planTunnel applied through the journal. On the remote host a car container (networking disabled)
 * gets eth1 from plumbing containers run by that host's own engine; here the other end joins a
 * bridge with a veth into a namespace the test makes (standing in for the car's tap). Pings cross
 * both ways; teardown from the journal leaves both hosts' links, rules and containers as before.
 * Needs root and a running dockerd; outside CI a missing one skips this file, in CI it fails.
 * Everything it makes is named cavsim-host* (by the script) or cvx*.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHostEngines } from '../../../src/api/host-engines.js';
import type { DockerPort } from '../../../src/host/docker/docker-port.js';
import { connectDocker } from '../../../src/host/docker/dockerode-port.js';
import { pingHosts } from '../../../src/host/docker/host-engines.js';
import { DEFAULT_BASE_IMAGE } from '../../../src/host/docker/images.js';
import { describeShipped, shipImages } from '../../../src/host/docker/ship-image.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { type HostsFile, loadHostsFile } from '../../../src/host/hosts-file/load-hosts-file.js';
import { Journal } from '../../../src/host/journal/journal.js';
import { createDirectOps, type HostNetOps } from '../../../src/host/network/hostnet-port.js';
import { JournaledHostNet } from '../../../src/host/network/journaled-ops.js';
import { createPlumbingOps } from '../../../src/host/network/plumbing-ops.js';
import { applyTunnelSteps, type TunnelHosts, tunnelUndoers } from '../../../src/host/network/tunnel-apply.js';
import { assertVnisFree, carVni, planTunnel } from '../../../src/host/network/tunnel-plan.js';
import { hostNetUndoers } from '../../../src/host/network/undoers.js';
import { machineState, networkState } from '../../support/machine-state.js';
import { dockerProblem, requireReal, rootProblem } from '../../support/real-components.js';
import { scratchDir } from '../../support/scratch-dir.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/local-hosts.sh', import.meta.url));
const real = requireReal('hosts/tunnel.test.ts', rootProblem() ?? (await dockerProblem(connectDocker())));
const script = (...args: string[]) => spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8' });
const sh = (file: string, args: string[]) => execFileSync(file, args, { encoding: 'utf8' });

const RUN_HOST = 'run-host';
const RUN_ID = `cvx-${process.pid}`;
const s = (process.pid % 100000).toString(36);
const NAMES = {
  bridge: `cvxb${s}`,
  vethHost: `cvxv${s}h`,
  vethPeer: `cvxv${s}p`,
  netns: `cvx-ns-${s}`,
  vxlan: `cvxx${s}`,
  car: `cvx-car-${process.pid}`,
  echo: `cvx-echo-${process.pid}`,
};
const HERE = { ip: '10.217.53.1', mac: '02:cf:00:00:53:01' };
const CAR = { ip: '10.217.53.2', mac: '02:cf:00:00:53:02' };

/** A UDP echo server (Node, in cavsim's base image and on this machine): `node -e ECHO PORT`. */
const ECHO =
  "const s=require('dgram').createSocket('udp4');s.on('message',(m,r)=>s.send(m,r.port,r.address));s.bind(Number(process.argv[1]));";
/**
 * `node -e PROBE HOST PORT N GAP_MS`: N datagrams GAP_MS apart to an echo server, printing the
 * round trips (ms) as JSON; the machine has no `ping`, and the same probe on both paths compares them fairly.
 */
const PROBE = [
  "const [h,p,n,g]=process.argv.slice(1);const s=require('dgram').createSocket('udp4');const sent=new Map();const rtts=[];let i=0;",
  "s.on('message',(m)=>{const t=sent.get(m.toString());if(t!==undefined){rtts.push(Number(process.hrtime.bigint()-t)/1e6);sent.delete(m.toString());}});",
  'const tick=()=>{if(i>=Number(n)){setTimeout(()=>{console.log(JSON.stringify(rtts));s.close();},300);return;}',
  'const k=String(i++);sent.set(k,process.hrtime.bigint());s.send(k,Number(p),h);setTimeout(tick,Number(g));};s.bind(0,tick);',
].join('');
const ECHO_PORT = '7409';
/** Round trips of a probe run (the first five left out: ARP, first wake-ups). */
const rtts = (json: string): number[] => (JSON.parse(json.trim().split('\n').at(-1)!) as number[]).slice(5);
/** `ping` replies' round trips (ms), the first five left out. */
const pingTimes = (output: string): number[] => [...output.matchAll(/time=([\d.]+) ms/g)].map((m) => Number(m[1])).slice(5);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const summary = (xs: number[]) => ({
  n: xs.length,
  avg: +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3),
  p50: +pct(xs, 50).toFixed(3),
  p99: +pct(xs, 99).toFixed(3),
});

describe.skipIf(real.skip)("a remote car's VXLAN tunnel between this machine and a local host", () => {
  let hostsFile: HostsFile;
  let started = false;
  let remote: DockerPort;
  let remoteName: string;
  let remoteAddress: string;
  let local: HostNetOps;
  let plumbing: HostNetOps;
  let hosts: TunnelHosts;
  let journal: Journal;
  let machineBefore: ReturnType<typeof machineState>;
  let remoteBefore: ReturnType<typeof networkState> & { containers: string[] };
  const t0 = Date.now();

  const remoteState = async () => ({
    ...networkState((file, args) => sh('docker', ['exec', remoteName, file, ...args])),
    containers: (await remote.listContainers({})).map((c) => c.name).sort(),
  });

  beforeAll(async () => {
    real.assertPresent();
    expect(script('list').stdout, 'local hosts are already started: run scripts/local-hosts.sh stop first').toBe('');
    machineBefore = machineState();
    const start = script('start', '2');
    started = true;
    expect(start.status, start.stderr).toBe(0);
    hostsFile = await loadHostsFile(/^export CAVSIM_HOSTS=(\S+)$/m.exec(start.stdout)![1]);
    const engines = connectHostEngines(hostsFile);
    remote = engines[0].docker;
    remoteName = engines[0].host.name;
    remoteAddress = engines[0].host.tunnelAddress!;
    local = createDirectOps(createCommandRunner());
    let n = 0;
    plumbing = createPlumbingOps(remote, {
      host: remoteName,
      image: DEFAULT_BASE_IMAGE,
      name: () => `cvx-plumb-${process.pid}-${++n}`,
      labels: { 'cavsim.run': RUN_ID },
    });
    hosts = {
      ops: (host) => (host === RUN_HOST ? local : plumbing),
      pidOf: async (_host, container) => {
        const c = await remote.inspectContainer(container);
        return c?.running ? c.pid : undefined;
      },
    };
    journal = Journal.open(`${scratchDir('cvx-tunnel-')}/journal.jsonl`);
  });

  afterAll(async () => {
    // Whatever a failed test left: the journal first, then the car, then the hosts.
    if (journal) await journal.teardown({ ...hostNetUndoers(local), ...tunnelUndoers(hosts) });
    if (remote) for (const name of [NAMES.car, NAMES.echo]) await remote.removeContainer(name, { force: true }).catch(() => {});
    if (started) script('stop');
    console.log(`[tunnel] whole file took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });

  it('a DockerPort per host of the file answers over TLS; pingHosts names a host whose engine does not', async () => {
    const engines = connectHostEngines(hostsFile);
    await pingHosts(engines);
    const h = hostsFile.hosts[1];
    const dead = connectHostEngines({
      file: hostsFile.file,
      hosts: [{ ...h, name: 'cvx-nobody', engineUrl: 'tcp://127.0.0.1:9', engine: { scheme: 'tcp', host: '127.0.0.1', port: 9 } }],
    });
    await expect(pingHosts([...engines, ...dead])).rejects.toThrow(
      /^a host's Docker engine does not answer: cvx-nobody \(tcp:\/\/127\.0\.0\.1:9\): Docker engine not reachable: connect ECONNREFUSED/,
    );
  });

  it('ships the base image into the host by docker save -> load (same id there), and then finds it present', async () => {
    const here = connectDocker();
    const first = await shipImages(here, remote, remoteName, [DEFAULT_BASE_IMAGE]);
    console.log(`[tunnel] ${describeShipped(remoteName, first).join('; ')}`);
    expect(first).toEqual([expect.objectContaining({ tag: DEFAULT_BASE_IMAGE, action: 'shipped', reason: 'missing' })]);
    expect((await remote.inspectImage(DEFAULT_BASE_IMAGE))?.id).toBe((await here.inspectImage(DEFAULT_BASE_IMAGE))?.id);
    expect(await shipImages(here, remote, remoteName, [DEFAULT_BASE_IMAGE])).toEqual([
      { tag: DEFAULT_BASE_IMAGE, id: first[0].id, action: 'present' },
    ]);
  });

  it('applies the tunnel from the journal: pings cross both ways; teardown leaves both hosts as before', async () => {
    remoteBefore = await remoteState();
    const runAddress = sh('ip', ['-4', '-o', 'addr', 'show', 'dev', 'cavsim-hosts']).match(/inet ([\d.]+)\//)![1];

    // The run's side stand-in for a car's tap: a bridge with a veth into a namespace (and the bridge's DOCKER-USER rule, as a run's).
    const standIn = new JournaledHostNet(journal, local, `cavsim:${RUN_ID}`);
    await standIn.createNetns(NAMES.netns);
    await standIn.createBridge(NAMES.bridge);
    await standIn.createVeth({
      hostEnd: NAMES.vethHost,
      peer: NAMES.vethPeer,
      bridge: NAMES.bridge,
      netns: { name: NAMES.netns },
      insideName: 'eth1',
      mac: HERE.mac,
      cidr: `${HERE.ip}/24`,
    });
    await standIn.addRule(
      { chain: 'DOCKER-USER', in: NAMES.bridge, out: NAMES.bridge, jump: 'ACCEPT', comment: `cavsim:${RUN_ID}` },
      'insert',
    );

    // The remote car: networking disabled, only loopback until its tunnel is plumbed.
    await remote.createContainer({
      name: NAMES.car,
      image: DEFAULT_BASE_IMAGE,
      labels: { 'cavsim.run': RUN_ID },
      cmd: ['node', '-e', ECHO, ECHO_PORT],
      plumbedByHost: true,
      init: true,
    });
    await remote.startContainer(NAMES.car);

    const plan = planTunnel({
      runId: RUN_ID,
      vni: carVni(RUN_ID, 0),
      runHost: { host: RUN_HOST, address: runAddress },
      remote: { host: remoteName, address: remoteAddress },
      runSide: { link: NAMES.vxlan, bridge: NAMES.bridge },
      remoteSide: {
        link: NAMES.vxlan,
        container: NAMES.car,
        inside: 'eth1',
        mac: CAR.mac,
        cidr: `${CAR.ip}/24`,
        neighbours: [{ ip: HERE.ip, mac: HERE.mac }],
      },
    });
    const planned = [{ vni: plan.vni, port: plan.port }];
    assertVnisFree(RUN_HOST, planned, (await local.run({ op: 'vxlan-list' })).vxlans ?? []);
    assertVnisFree(remoteName, planned, (await plumbing.run({ op: 'vxlan-list' })).vxlans ?? []);

    const applyStarted = Date.now();
    await applyTunnelSteps([...plan.runSide, ...plan.remoteSide], journal, hosts);
    console.log(`[tunnel] applied (1 step here, 2 on ${remoteName}) in ${Date.now() - applyStarted} ms`);

    const inCar = await remote.exec(NAMES.car, ['ip', '-o', '-d', 'link', 'show', 'dev', 'eth1']);
    expect(inCar.stdout).toContain(`link/ether ${CAR.mac}`);
    expect(inCar.stdout).toMatch(
      new RegExp(
        `vxlan id ${plan.vni} remote ${runAddress.replace(/\./g, '\\.')} local ${remoteAddress.replace(/\./g, '\\.')} .*dstport 14789 nolearning`,
      ),
    );
    expect(sh('ip', ['-o', '-d', 'link', 'show', 'dev', NAMES.vxlan])).toMatch(
      new RegExp(`master ${NAMES.bridge} .*vxlan id ${plan.vni} remote ${remoteAddress.replace(/\./g, '\\.')}`),
    );
    expect((await local.run({ op: 'vxlan-list' })).vxlans).toContainEqual({
      name: NAMES.vxlan,
      vni: plan.vni,
      port: 14789,
      alias: `cavsim:${RUN_ID}`,
    });

    // Across the tunnel, both ways: UDP from the stand-in's namespace here to the car's echo server, and ping from the car back.
    const there = rtts(sh('ip', ['netns', 'exec', NAMES.netns, 'node', '-e', PROBE, CAR.ip, ECHO_PORT, '205', '10']));
    const back = await remote.exec(NAMES.car, ['ping', '-c', '205', '-i', '0.01', '-W', '1', HERE.ip]);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/205 packets transmitted, 205 received/);
    // The plain path: this host to an echo server in the remote host's own namespace, no tunnel.
    await remote.createContainer({
      name: NAMES.echo,
      image: DEFAULT_BASE_IMAGE,
      labels: { 'cavsim.run': RUN_ID },
      cmd: ['node', '-e', ECHO, ECHO_PORT],
      hostNetwork: true,
      init: true,
    });
    await remote.startContainer(NAMES.echo);
    await new Promise((r) => setTimeout(r, 1000));
    const plain = rtts(sh('node', ['-e', PROBE, remoteAddress, ECHO_PORT, '205', '10']));
    // The kernel's own echo, from the remote side: the car over the tunnel against the remote host's namespace to this host.
    const pingBack = await remote.exec(NAMES.echo, ['ping', '-c', '205', '-i', '0.01', '-W', '1', runAddress]);
    expect(pingBack.exitCode, pingBack.stderr).toBe(0);
    await remote.removeContainer(NAMES.echo, { force: true });
    const pingTunnel = summary(pingTimes(back.stdout));
    const pingPlain = summary(pingTimes(pingBack.stdout));
    const tunnel = summary(there);
    const direct = summary(plain);
    console.log(
      `[tunnel] UDP echo RTT ms over the tunnel ${JSON.stringify(tunnel)}; plain path (this host -> ${remoteAddress}) ${JSON.stringify(direct)}; added p50 ${(tunnel.p50 - direct.p50).toFixed(3)}, p99 ${(tunnel.p99 - direct.p99).toFixed(3)}`,
    );
    console.log(
      `[tunnel] ping RTT ms, car -> here over the tunnel ${JSON.stringify(pingTunnel)}; remote host -> this host plain ${JSON.stringify(pingPlain)}; added p50 ${(pingTunnel.p50 - pingPlain.p50).toFixed(3)}, p99 ${(pingTunnel.p99 - pingPlain.p99).toFixed(3)}`,
    );
    expect(tunnel.n).toBe(200);
    expect(direct.n).toBe(200);
    // Nothing reaches the car any other way: its only links are loopback and the tunnel.
    expect(
      (await remote.exec(NAMES.car, ['ip', '-o', 'link'])).stdout
        .trim()
        .split('\n')
        .map((l) => l.split(':')[1].trim().split('@')[0]),
    ).toEqual(['lo', 'eth1']);

    const report = await journal.teardown({ ...hostNetUndoers(local), ...tunnelUndoers(hosts) });
    expect(report.failed).toEqual([]);
    expect(report.undone).toHaveLength(7);
    expect(journal.outstanding()).toEqual([]);
    expect((await remote.exec(NAMES.car, ['ip', '-o', 'link'])).stdout).not.toContain('eth1');
    await remote.removeContainer(NAMES.car, { force: true });
    expect(await remoteState()).toEqual(remoteBefore);
    expect(sh('iptables-save', [])).not.toContain(`cavsim:${RUN_ID}`);
    expect(sh('ip', ['netns', 'list'])).not.toContain(NAMES.netns);
    const after = networkState();
    for (const name of [NAMES.bridge, NAMES.vethHost, NAMES.vxlan]) expect(after.links.join('\n')).not.toContain(`: ${name}`);
  });

  it('stop leaves this machine as it was', () => {
    const stop = script('stop');
    expect(stop.status, stop.stderr).toBe(0);
    started = false;
    expect(machineState()).toEqual(machineBefore);
  });
});
