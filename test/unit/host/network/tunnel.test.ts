import { describe, expect, it } from 'vitest';
import { EnvironmentError, ExternalProcessError, UserInputError } from '../../../../src/errors.js';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import type { CommandRunner } from '../../../../src/host/exec/command-runner.js';
import { Journal } from '../../../../src/host/journal/journal.js';
import { HOSTNET_KINDS } from '../../../../src/host/journal/kinds.js';
import { executeOperation, parseVxlanList } from '../../../../src/host/network/execute.js';
import type { HostNetOps } from '../../../../src/host/network/hostnet-port.js';
import { type HostNetOperation, hostNetOperationSchema } from '../../../../src/host/network/operation-schema.js';
import { createPlumbingOps, PLUMBING_CAPS, plumbingSessionSpec, withoutSysctl } from '../../../../src/host/network/plumbing-ops.js';
import { applyTunnelSteps, type TunnelHosts, tunnelUndoers } from '../../../../src/host/network/tunnel-apply.js';
import {
  assertVnisFree,
  carVni,
  controlVni,
  MAX_TUNNELLED_CARS,
  planTunnel,
  type RemoteCarTunnel,
  vniBlock,
} from '../../../../src/host/network/tunnel-plan.js';
import { scratchDir } from '../../../support/scratch-dir.js';
import { FakeDockerode } from '../docker/fake-dockerode.js';

const RUN = 'run-2026-11-29-a';
const car = (over: Partial<RemoteCarTunnel> = {}): RemoteCarTunnel => ({
  runId: RUN,
  vni: carVni(RUN, 3),
  runHost: { host: 'here', address: '10.0.0.1' },
  remote: { host: 'lab-pc-1', address: '10.0.0.11' },
  runSide: { link: 'vx-abc123-3', bridge: 'br-abc123-3' },
  remoteSide: {
    link: 'vx-abc123-3',
    container: 'cavsim-run-car-3',
    inside: 'eth1',
    mac: '02:ca:ab:c1:00:03',
    cidr: '10.210.171.4/24',
    neighbours: [{ ip: '10.210.171.1', mac: '02:ca:ab:c1:00:00' }],
  },
  ...over,
});

describe('VNIs', () => {
  it("are one block per run (16 bits of the run id's hash, never 0) with a slot per car and per remote host's control link", () => {
    const block = vniBlock(RUN);
    expect(block).toBeGreaterThanOrEqual(1);
    expect(block).toBeLessThanOrEqual(0xffff);
    const cars = Array.from({ length: MAX_TUNNELLED_CARS }, (_, i) => carVni(RUN, i));
    const controls = Array.from({ length: 32 }, (_, h) => controlVni(RUN, h));
    const all = [...cars, ...controls];
    expect(new Set(all).size).toBe(256);
    for (const v of all) {
      expect(v >> 8).toBe(block);
      expect(v).toBeLessThanOrEqual(0xffffff);
    }
    expect(carVni(RUN, 3)).toBe(carVni(RUN, 3));
  });

  it('differ between runs (here: 200 run ids, no two blocks equal)', () => {
    const blocks = new Set(Array.from({ length: 200 }, (_, i) => vniBlock(`run-${i}`)));
    expect(blocks.size).toBe(200);
  });

  it('refuse a car or host beyond the block', () => {
    expect(() => carVni(RUN, MAX_TUNNELLED_CARS)).toThrow(UserInputError);
    expect(() => controlVni(RUN, 32)).toThrow(/at most 32 remote hosts/);
  });

  it('a VNI in use on the host on the same port is refused, naming the device and the other run; another port is no clash', () => {
    const planned = [{ vni: 1000, port: 14789 }];
    expect(() => assertVnisFree('lab-pc-1', planned, [{ name: 'vxlan0', vni: 1000, port: 8472 }])).not.toThrow();
    const err = (() => {
      try {
        assertVnisFree('lab-pc-1', planned, [{ name: 'vx-0a0b0c-1', vni: 1000, port: 14789, alias: 'cavsim:other-run' }]);
      } catch (e) {
        return e as EnvironmentError;
      }
    })();
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err!.message).toBe('lab-pc-1: VNI 1000 is already used by vx-0a0b0c-1 (cavsim:other-run) on UDP port 14789');
    expect(err!.hint).toContain('another cavsim run (cavsim:other-run)');
  });
});

describe('planTunnel', () => {
  it("gives the run's side (a VXLAN port of the car's bridge) and the remote side (a VXLAN moved into the car as eth1), each with its inverse", () => {
    const plan = planTunnel(car());
    const vni = carVni(RUN, 3);
    expect(plan.port).toBe(14789);
    expect(plan.runSide).toEqual([
      {
        host: 'here',
        id: `vxlan vx-abc123-3 vni ${vni} -> lab-pc-1`,
        apply: {
          op: 'create-vxlan',
          name: 'vx-abc123-3',
          alias: `cavsim:${RUN}`,
          vni,
          port: 14789,
          mtu: 1450,
          local: '10.0.0.1',
          remote: '10.0.0.11',
          bridge: 'br-abc123-3',
        },
        inverse: { op: 'delete-link', name: 'vx-abc123-3', alias: `cavsim:${RUN}` },
      },
    ]);
    expect(plan.remoteSide.map((s) => [s.host, s.apply, s.inverse])).toEqual([
      [
        'lab-pc-1',
        {
          op: 'create-vxlan',
          name: 'vx-abc123-3',
          alias: `cavsim:${RUN}`,
          vni,
          port: 14789,
          mtu: 1450,
          local: '10.0.0.11',
          remote: '10.0.0.1',
        },
        { op: 'delete-link', name: 'vx-abc123-3', alias: `cavsim:${RUN}` },
      ],
      [
        'lab-pc-1',
        {
          op: 'move-into-netns',
          name: 'vx-abc123-3',
          netns: { container: 'cavsim-run-car-3' },
          newName: 'eth1',
          mac: '02:ca:ab:c1:00:03',
          cidr: '10.210.171.4/24',
          neighbours: [{ ip: '10.210.171.1', mac: '02:ca:ab:c1:00:00' }],
        },
        { op: 'delete-link', name: 'eth1', netns: { container: 'cavsim-run-car-3' }, alias: `cavsim:${RUN}` },
      ],
    ]);
    // Every operation is one the privileged helper accepts once the container's pid is known.
    for (const s of [...plan.runSide, ...plan.remoteSide])
      for (const op of [s.apply, s.inverse]) {
        const resolved = 'netns' in op && op.netns && 'container' in op.netns ? { ...op, netns: { pid: 4242 } } : op;
        expect(() => hostNetOperationSchema.parse(resolved)).not.toThrow();
      }
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  it('refuses a tunnel from a host to itself and a name over 15 characters', () => {
    expect(() => planTunnel(car({ remote: { host: 'here', address: '10.0.0.11' } }))).toThrow(/is the run's own host/);
    expect(() => planTunnel(car({ remote: { host: 'lab-pc-1', address: '10.0.0.1' } }))).toThrow(UserInputError);
    expect(() => planTunnel(car({ runSide: { link: 'vx-abc123-3-toolong', bridge: 'br-abc123-3' } }))).toThrow(/invalid interface name/);
  });
});

/** Two hosts' links, by namespace (`host` or `pid:N`), with their alias, bridge and VXLAN peer: a kernel per host. */
class FakeKernels {
  readonly links = new Map<string, Map<string, { alias?: string; master?: string; vni?: number; mac?: string }>>();
  readonly ran: string[] = [];
  pids = new Map<string, number>([['lab-pc-1/cavsim-run-car-3', 4242]]);
  failOn?: string;

  ns(host: string, where = 'host') {
    const key = `${host}/${where}`;
    if (!this.links.has(key)) this.links.set(key, new Map());
    return this.links.get(key)!;
  }

  hosts(): TunnelHosts {
    return {
      ops: (host) => this.ops(host),
      pidOf: async (host, container) => this.pids.get(`${host}/${container}`),
    };
  }

  state() {
    return [...this.links].flatMap(([ns, m]) => [...m.keys()].map((l) => `${ns}/${l}`)).sort();
  }

  private ops(host: string): HostNetOps {
    return {
      run: async (raw: HostNetOperation) => {
        const op = hostNetOperationSchema.parse(raw);
        this.ran.push(`${host} ${op.op}`);
        if (this.failOn === `${host} ${op.op}`) throw new Error(`${op.op} failed on ${host}`);
        const where = (n?: { pid: number } | { name: string }) => (n ? ('pid' in n ? `pid:${n.pid}` : n.name) : 'host');
        if (op.op === 'create-vxlan') {
          if (this.ns(host).has(op.name)) throw new Error('File exists');
          this.ns(host).set(op.name, { alias: op.alias, vni: op.vni, ...(op.bridge ? { master: op.bridge } : {}) });
        } else if (op.op === 'move-into-netns') {
          const link = this.ns(host).get(op.name)!;
          this.ns(host).delete(op.name);
          this.ns(host, where(op.netns)).set(op.newName, { ...link, ...(op.mac ? { mac: op.mac } : {}) });
        } else if (op.op === 'delete-link') {
          const ns = this.ns(host, where(op.netns));
          if (!op.alias || ns.get(op.name)?.alias === op.alias) ns.delete(op.name);
        } else throw new Error(`unexpected ${op.op}`);
        return { ok: true as const };
      },
    };
  }
}

describe('applying a tunnel and undoing it from the journal', () => {
  const journal = () => Journal.open(`${scratchDir('cavsim-tunnel-')}/journal.jsonl`);

  it('journals each step with its host before it runs; teardown leaves both hosts as they were', async () => {
    const kernels = new FakeKernels();
    kernels.ns('lab-pc-1', 'pid:4242').set('lo', {});
    const before = kernels.state();
    const j = journal();
    const plan = planTunnel(car());
    await applyTunnelSteps([...plan.runSide, ...plan.remoteSide], j, kernels.hosts());
    expect(kernels.ns('here').get('vx-abc123-3')).toMatchObject({ master: 'br-abc123-3', vni: plan.vni });
    expect(kernels.ns('lab-pc-1').has('vx-abc123-3')).toBe(false);
    expect(kernels.ns('lab-pc-1', 'pid:4242').get('eth1')).toMatchObject({ mac: '02:ca:ab:c1:00:03', vni: plan.vni });
    expect(j.outstanding().map((e) => [e.kind, e.undo.host])).toEqual([
      [HOSTNET_KINDS.tunnel, 'here'],
      [HOSTNET_KINDS.tunnel, 'lab-pc-1'],
      [HOSTNET_KINDS.tunnel, 'lab-pc-1'],
    ]);

    const report = await j.teardown(tunnelUndoers(kernels.hosts()));
    expect(report.failed).toEqual([]);
    expect(report.undone).toHaveLength(3);
    expect(kernels.state()).toEqual(before);
    expect(j.outstanding()).toEqual([]);
  });

  it('a run cut short before the move is undone too (the remote VXLAN still in the host namespace)', async () => {
    const kernels = new FakeKernels();
    kernels.failOn = 'lab-pc-1 move-into-netns';
    const j = journal();
    const plan = planTunnel(car());
    await expect(applyTunnelSteps([...plan.runSide, ...plan.remoteSide], j, kernels.hosts())).rejects.toThrow(/move-into-netns failed/);
    expect(kernels.state()).toEqual(['here/host/vx-abc123-3', 'lab-pc-1/host/vx-abc123-3']);
    // Reopened from the file, as `cavsim teardown` after kill -9.
    const report = await Journal.open(j.path).teardown(tunnelUndoers(kernels.hosts()));
    expect(report.failed).toEqual([]);
    expect(kernels.state()).toEqual([]);
  });

  it("a car that is gone took its eth1 with it: that inverse does nothing; a link of someone else's under the name stays", async () => {
    const kernels = new FakeKernels();
    const j = journal();
    const plan = planTunnel(car());
    await applyTunnelSteps([...plan.runSide, ...plan.remoteSide], j, kernels.hosts());
    kernels.pids.clear();
    kernels.links.delete('lab-pc-1/pid:4242');
    kernels.ns('here').set('vx-abc123-3', { alias: 'cavsim:another-run' });
    await Journal.open(j.path).teardown(tunnelUndoers(kernels.hosts()));
    expect(kernels.state()).toEqual(['here/host/vx-abc123-3']);
    expect(kernels.ran.filter((r) => r.endsWith('delete-link'))).toEqual(['lab-pc-1 delete-link', 'here delete-link']);
  });

  it('refuses to plumb a car whose container is not running, after journaling the step', async () => {
    const kernels = new FakeKernels();
    kernels.pids.clear();
    const j = journal();
    const plan = planTunnel(car());
    await expect(applyTunnelSteps(plan.remoteSide, j, kernels.hosts())).rejects.toThrow(
      /lab-pc-1: vx-abc123-3 -> cavsim-run-car-3 as eth1: the container is not running/,
    );
    await j.teardown(tunnelUndoers(kernels.hosts()));
    expect(kernels.state()).toEqual([]);
  });
});

describe('the VXLAN operations', () => {
  const recording = (stdout = '') => {
    const calls: string[][] = [];
    const runner: CommandRunner = {
      async run(argv, opts) {
        calls.push(opts?.input ? [...argv, ...opts.input.trim().split('\n')] : [...argv]);
        return { stdout, stderr: '', exitCode: 0 };
      },
    };
    return { calls, runner };
  };

  it('create-vxlan: one fixed peer, learning off, IPv6 off before it is up, then a port of the bridge', async () => {
    const { calls, runner } = recording();
    await executeOperation(planTunnel(car()).runSide[0].apply, runner);
    expect(calls).toEqual([
      [
        'ip',
        '-batch',
        '-',
        `link add name vx-abc123-3 type vxlan id ${carVni(RUN, 3)} local 10.0.0.1 remote 10.0.0.11 dstport 14789 nolearning`,
        `link set dev vx-abc123-3 alias cavsim:${RUN}`,
        'link set dev vx-abc123-3 mtu 1450',
      ],
      ['sysctl', '-q', '-w', 'net/ipv6/conf/vx-abc123-3/disable_ipv6=1'],
      ['ip', '-batch', '-', 'link set dev vx-abc123-3 master br-abc123-3', 'link set dev vx-abc123-3 up'],
    ]);
  });

  it("delete-link with an alias deletes only a link carrying it, inside the container's namespace", async () => {
    const mine = recording(
      `9: eth1: <BROADCAST,MULTICAST,UP> mtu 1450 qdisc noqueue state UNKNOWN \\    link/ether 02:ca:ab:c1:00:03 \\    alias cavsim:${RUN}`,
    );
    await executeOperation({ op: 'delete-link', name: 'eth1', netns: { pid: 4242 }, alias: `cavsim:${RUN}` }, mine.runner);
    expect(mine.calls[1]).toEqual(['nsenter', '--net=/proc/4242/ns/net', 'ip', 'link', 'delete', 'dev', 'eth1']);
    const theirs = recording('9: eth1: <UP> mtu 1500 \\    alias somebody');
    await executeOperation({ op: 'delete-link', name: 'eth1', netns: { pid: 4242 }, alias: `cavsim:${RUN}` }, theirs.runner);
    expect(theirs.calls).toHaveLength(1);
  });

  it('vxlan-list reads name, VNI, port and alias from ip -d -o link', () => {
    const line =
      '2: cvxv0: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN mode DEFAULT group default qlen 1000\\    link/ether 02:a1:d9:0e:da:94 brd ff:ff:ff:ff:ff:ff promiscuity 0  allmulti 0 minmtu 68 maxmtu 65535 \\    vxlan id 42 remote 10.9.9.2 local 10.9.9.1 srcport 0 0 dstport 14789 nolearning ttl auto ageing 300 udpcsum addrgenmode eui64 \\    alias cavsim:x';
    expect(parseVxlanList(`${line}\n7: vxlan0: <UP> mtu 1450 \\    vxlan id 7 local 10.0.0.2 dev eth0 srcport 0 0 ttl auto\n`)).toEqual([
      { name: 'cvxv0', vni: 42, port: 14789, alias: 'cavsim:x' },
      { name: 'vxlan0', vni: 7, port: 8472 },
    ]);
  });
});

describe('plumbing containers on a remote host', () => {
  it("run each command in a short-lived container of the host's engine: host network and pid, three capabilities, stdin fed, removed", async () => {
    const fake = new FakeDockerode();
    fake.images.set('cavsim/base:bookworm', { Id: 'sha256:base1', RepoTags: ['cavsim/base:bookworm'], Config: { Labels: {} } });
    const seen: Array<{ cmd: string[]; host: Record<string, unknown>; input: string }> = [];
    fake.oneShot = (options, input) => {
      seen.push({ cmd: options.Cmd, host: options.HostConfig, input });
      return { exitCode: 0, stdout: '' };
    };
    let n = 0;
    const ops = createPlumbingOps(createDockerPort(fake), {
      host: 'lab-pc-1',
      image: 'cavsim/base:bookworm',
      name: () => `cvx-plumb-${++n}`,
    });
    await ops.run(planTunnel(car()).remoteSide[0].apply as HostNetOperation);
    expect(seen.map((s) => s.cmd)).toEqual([
      ['ip', '-batch', '-'],
      ['tee', '/proc/sys/net/ipv6/conf/vx-abc123-3/disable_ipv6'],
    ]);
    expect(seen[1].input).toBe('1\n');
    expect(seen[0].input).toContain(
      `link add name vx-abc123-3 type vxlan id ${carVni(RUN, 3)} local 10.0.0.11 remote 10.0.0.1 dstport 14789 nolearning\n`,
    );
    expect(seen[0].host).toMatchObject({
      NetworkMode: 'host',
      PidMode: 'host',
      CapAdd: ['NET_ADMIN', 'SYS_ADMIN', 'SYS_PTRACE'],
      SecurityOpt: ['seccomp=unconfined', 'apparmor=unconfined'],
      MaskedPaths: [],
      ReadonlyPaths: [],
    });
    expect(seen[0].host).not.toHaveProperty('Privileged');
    expect(fake.containers.size).toBe(0);
    expect(fake.calls.filter((c) => c.startsWith('createContainer'))).toEqual([
      'createContainer cvx-plumb-1',
      'createContainer cvx-plumb-2',
    ]);
  });

  it("run each command as an exec in the run's plumbing container while it runs there, stdin fed; short-lived containers when it does not", async () => {
    const fake = new FakeDockerode();
    fake.images.set('img', { Id: 'sha256:i', RepoTags: ['img'], Config: { Labels: {} } });
    const docker = createDockerPort(fake);
    const spec = plumbingSessionSpec({ image: 'img', labels: { 'cavsim.run': RUN } }, 'cvx-plumbing');
    expect(spec).toMatchObject({ cmd: ['sleep', 'infinity'], init: true, hostNetwork: true, hostPid: true, capAdd: [...PLUMBING_CAPS] });
    await docker.createContainer(spec);
    await docker.startContainer('cvx-plumbing');
    let n = 0;
    const options = { host: 'lab-pc-1', image: 'img', name: () => `cvx-plumb-${++n}`, session: 'cvx-plumbing' };
    await createPlumbingOps(docker, options).run(planTunnel(car()).remoteSide[0].apply as HostNetOperation);
    expect(fake.execInputs.map((e) => [e.container, e.cmd])).toEqual([
      ['cvx-plumbing', ['ip', '-batch', '-']],
      ['cvx-plumbing', ['tee', '/proc/sys/net/ipv6/conf/vx-abc123-3/disable_ipv6']],
    ]);
    expect(fake.execInputs[0].input).toContain('link add name vx-abc123-3 type vxlan');
    expect(fake.execInputs[1].input).toBe('1\n');
    expect(fake.calls.filter((c) => c.startsWith('createContainer'))).toEqual(['createContainer cvx-plumbing']);
    // a failed exec names the host, as a failed short-lived container does
    fake.oneShot = () => ({ exitCode: 2, stdout: '' });
    await expect(createPlumbingOps(docker, options).run(planTunnel(car()).remoteSide[0].apply as HostNetOperation)).rejects.toThrow(
      /ip -batch - failed \(exit 2\): on lab-pc-1/,
    );

    // the container gone (a later teardown on a restarted host): short-lived containers again
    fake.oneShot = () => ({ exitCode: 0, stdout: '' });
    await docker.removeContainer('cvx-plumbing', { force: true });
    const execs = fake.execInputs.length;
    await createPlumbingOps(docker, options).run({ op: 'vxlan-list' });
    expect(fake.execInputs).toHaveLength(execs);
    expect(fake.calls.filter((c) => c.startsWith('createContainer')).at(-1)).toBe('createContainer cvx-plumb-1');
  });

  it('write sysctl settings with tee (the base image has no procps), also inside a namespace', () => {
    expect(
      withoutSysctl([
        'nsenter',
        '--net=/proc/7/ns/net',
        'sysctl',
        '-q',
        '-w',
        'net/ipv6/conf/eth1/disable_ipv6=1',
        'net/ipv6/conf/lo/disable_ipv6=1',
      ]),
    ).toEqual({
      argv: [
        'nsenter',
        '--net=/proc/7/ns/net',
        'tee',
        '/proc/sys/net/ipv6/conf/eth1/disable_ipv6',
        '/proc/sys/net/ipv6/conf/lo/disable_ipv6',
      ],
      input: '1\n',
    });
    expect(withoutSysctl(['ip', '-batch', '-'], 'link show\n')).toEqual({ argv: ['ip', '-batch', '-'], input: 'link show\n' });
    expect(withoutSysctl(['sysctl', '-w', 'a=1', 'b=0']).argv).toEqual(['sysctl', '-w', 'a=1', 'b=0']);
  });

  it('name the host in a failed command, and refuse operations that would look at this machine instead', async () => {
    const fake = new FakeDockerode();
    fake.images.set('img', { Id: 'sha256:i', RepoTags: ['img'], Config: { Labels: {} } });
    fake.oneShot = () => ({ exitCode: 2, stdout: '' });
    const ops = createPlumbingOps(createDockerPort(fake), { host: 'lab-pc-1', image: 'img', name: () => 'cvx-plumb' });
    await expect(ops.run({ op: 'vxlan-list' })).rejects.toThrow(ExternalProcessError);
    await expect(ops.run({ op: 'vxlan-list' })).rejects.toThrow(/ip -d -o link show type vxlan failed \(exit 2\): on lab-pc-1/);
    await expect(ops.run({ op: 'netns-info', name: 'x' })).rejects.toThrow(/lab-pc-1: netns-info is not done on a remote host/);
  });
});
