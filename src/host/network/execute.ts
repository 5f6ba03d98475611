import { existsSync } from 'node:fs';
import { EnvironmentError } from '../../errors.js';
import type { CommandRunner } from '../exec/command-runner.js';
import { iptablesArgv, iptablesRestoreInput } from './iptables-argv.js';
import {
  type HostNetResult,
  hostNetOperationSchema,
  type LinkSpec,
  type NetnsTarget,
  type ValidHostNetOperation,
} from './operation-schema.js';

/** argv prefix that runs a command inside a network namespace. */
export function inNetns(target: NetnsTarget | undefined, argv: string[]): string[] {
  if (!target) return argv;
  return ['nsenter', `--net=${netnsPath(target)}`, ...argv];
}

export function netnsPath(target: NetnsTarget): string {
  return 'pid' in target ? `/proc/${target.pid}/ns/net` : `/run/netns/${target.name}`;
}

/**
 * A bridge with multicast snooping joins the all-snoopers group 224.0.0.106 and sends IGMP reports
 * for it through its ports, onto the V2V channel, where each holds the CSMA bus for a whole delay
 * (at 300 ms, one message then waits a slot). Our bridges have two ports and need no snooping, and
 * no spanning tree either.
 */
export const bridgeAddArgv = (name: string) => [
  'ip',
  'link',
  'add',
  'name',
  name,
  'type',
  'bridge',
  'mcast_snooping',
  '0',
  'stp_state',
  '0',
];

const ipv6Off = (...names: string[]) => ['sysctl', '-q', '-w', ...names.map((name) => `net/ipv6/conf/${name}/disable_ipv6=1`)];

/**
 * Several `ip` commands in one process (`ip -batch -`): each spawn costs 5-20 ms on a busy VM, and
 * a vehicle's plumbing took dozens of them. `ip` stops at the first command that fails.
 */
const ipBatch = (runner: CommandRunner, netns: NetnsTarget | undefined, commands: string[][]) =>
  runner.run(inNetns(netns, ['ip', '-batch', '-']), { input: `${commands.map((c) => c.join(' ')).join('\n')}\n` });

/**
 * Executes one validated operation with argv arrays. The same code runs in-process when cavsim is
 * root and inside the privileged helper under sudo otherwise.
 */
export async function executeOperation(raw: unknown, runner: CommandRunner): Promise<HostNetResult> {
  const op: ValidHostNetOperation = hostNetOperationSchema.parse(raw);
  switch (op.op) {
    case 'link-info': {
      if (op.netns && !existsSync(netnsPath(op.netns))) return { ok: true, exists: false };
      const r = await runner.run(inNetns(op.netns, ['ip', '-o', 'link', 'show', 'dev', op.name]), { allowFailure: true });
      if (r.exitCode !== 0) return { ok: true, exists: false };
      return { ok: true, exists: true, ...parseLinkState(r.stdout) };
    }
    case 'link-list': {
      const r = await runner.run(inNetns(op.netns, ['ip', '-o', 'link', 'show']));
      return { ok: true, links: parseLinkList(r.stdout) };
    }
    case 'chain-exists': {
      const r = await runner.run(['iptables', '-w', '-t', 'filter', '-S', op.chain], { allowFailure: true });
      return { ok: true, exists: r.exitCode === 0 };
    }
    case 'netns-info':
      return { ok: true, exists: existsSync(`/run/netns/${op.name}`) };
    case 'create-netns':
      await runner.run(['ip', 'netns', 'add', op.name]);
      return { ok: true };
    case 'delete-netns':
      if (existsSync(`/run/netns/${op.name}`)) await runner.run(['ip', 'netns', 'delete', op.name]);
      return { ok: true };
    case 'create-bridge':
      await ipBatch(runner, undefined, [
        bridgeAddArgv(op.name).slice(1),
        ['link', 'set', 'dev', op.name, 'alias', op.alias],
        ...(op.cidr ? [['addr', 'add', op.cidr, 'dev', op.name]] : []),
      ]);
      await runner.run(ipv6Off(op.name), { allowFailure: true });
      return { ok: true };
    case 'create-tap':
      await ipBatch(runner, undefined, [
        ['tuntap', 'add', 'dev', op.name, 'mode', 'tap', 'user', String(op.uid)],
        ['link', 'set', 'dev', op.name, 'alias', op.alias],
      ]);
      await runner.run(ipv6Off(op.name), { allowFailure: true });
      return { ok: true };
    case 'create-veth':
      await ipBatch(runner, undefined, [
        ['link', 'add', 'name', op.name, 'type', 'veth', 'peer', 'name', op.peer],
        ['link', 'set', 'dev', op.name, 'alias', op.alias],
      ]);
      await runner.run(ipv6Off(op.name, op.peer), { allowFailure: true });
      return { ok: true };
    case 'link-up':
      await runner.run(['ip', 'link', 'set', 'dev', op.name, 'up']);
      return { ok: true };
    case 'enslave':
      await ipBatch(runner, undefined, [
        ['link', 'set', 'dev', op.name, 'master', op.bridge],
        ['link', 'set', 'dev', op.name, 'up'],
      ]);
      return { ok: true };
    case 'leave-bridge': {
      const r = await runner.run(['ip', '-o', 'link', 'show', 'dev', op.name], { allowFailure: true });
      if (r.exitCode !== 0 || parseLinkState(r.stdout).master !== op.bridge) return { ok: true };
      await ipBatch(runner, undefined, [
        ['link', 'set', 'dev', op.name, 'nomaster'],
        ...(op.down ? [['link', 'set', 'dev', op.name, 'down']] : []),
      ]);
      return { ok: true };
    }
    case 'move-into-netns': {
      const where = 'pid' in op.netns ? String(op.netns.pid) : op.netns.name;
      await runner.run(['ip', 'link', 'set', 'dev', op.name, 'netns', where]);
      await runner.run(inNetns(op.netns, ['ip', 'link', 'set', 'dev', op.name, 'name', op.newName]));
      await configureInside(runner, op.netns, [{ name: op.newName, mac: op.mac, cidr: op.cidr, neighbours: op.neighbours, mtu: op.mtu }]);
      return { ok: true };
    }
    case 'create-links':
      await createLinks(runner, op.alias, op.group, op.links);
      return { ok: true };
    case 'configure-links':
      await configureInside(runner, op.netns, op.links);
      return { ok: true };
    case 'delete-links': {
      if (op.group !== undefined) {
        const inGroup = parseLinkList((await runner.run(['ip', '-o', 'link', 'show', 'group', String(op.group)])).stdout);
        const ours = new Set(op.names);
        // A link of someone else's in the group (a clash of group numbers): delete ours by name only.
        if (inGroup.length && inGroup.every((l) => ours.has(l.name)))
          await runner.run(['ip', 'link', 'delete', 'group', String(op.group)], { allowFailure: true });
      }
      const present = await hostLinkNames(runner);
      const remaining = op.names.filter((n) => present.has(n));
      if (remaining.length)
        await runner.run(['ip', '-force', '-batch', '-'], {
          input: remaining.map((n) => `link delete dev ${n}\n`).join(''),
          allowFailure: true,
        });
      const left = remaining.length ? await hostLinkNames(runner) : new Set<string>();
      const stuck = remaining.filter((n) => left.has(n));
      if (stuck.length) throw new EnvironmentError(`could not delete links ${stuck.join(', ')}`, 'check `ip -d link show`');
      return { ok: true };
    }
    case 'delete-link': {
      if (op.alias) {
        const shown = await runner.run(inNetns(op.netns, ['ip', '-o', 'link', 'show', 'dev', op.name]), { allowFailure: true });
        if (shown.exitCode !== 0 || parseLinkState(shown.stdout).alias !== op.alias) return { ok: true };
      }
      const r = await runner.run(inNetns(op.netns, ['ip', 'link', 'delete', 'dev', op.name]), { allowFailure: true });
      if (r.exitCode !== 0) {
        const still = await runner.run(inNetns(op.netns, ['ip', '-o', 'link', 'show', 'dev', op.name]), { allowFailure: true });
        if (still.exitCode === 0)
          throw new EnvironmentError(`could not delete link ${op.name}: ${r.stderr.trim()}`, 'check `ip -d link show`');
      }
      return { ok: true };
    }
    case 'create-vxlan': {
      const { name, vni, local, remote, port } = op;
      await ipBatch(runner, undefined, [
        [
          'link',
          'add',
          'name',
          name,
          'type',
          'vxlan',
          'id',
          String(vni),
          'local',
          local,
          'remote',
          remote,
          'dstport',
          String(port),
          'nolearning',
        ],
        ['link', 'set', 'dev', name, 'alias', op.alias],
        ...(op.mtu ? [['link', 'set', 'dev', name, 'mtu', String(op.mtu)]] : []),
      ]);
      await runner.run(ipv6Off(name), { allowFailure: true });
      if (op.bridge)
        await ipBatch(runner, undefined, [
          ['link', 'set', 'dev', name, 'master', op.bridge],
          ['link', 'set', 'dev', name, 'up'],
        ]);
      return { ok: true };
    }
    case 'vxlan-list': {
      const r = await runner.run(['ip', '-d', '-o', 'link', 'show', 'type', 'vxlan']);
      return { ok: true, vxlans: parseVxlanList(r.stdout) };
    }
    case 'iptables-add':
      await runner.run(inNetns(op.netns, iptablesArgv(op.position === 'insert' ? '-I' : '-A', op.rule)));
      return { ok: true };
    case 'iptables-add-all':
      await runner.run(inNetns(op.netns, ['iptables-restore', '-w', '--noflush']), {
        input: iptablesRestoreInput(op.position === 'insert' ? '-I' : '-A', op.rules),
      });
      return { ok: true };
    case 'iptables-delete-all': {
      if (op.netns && !existsSync(netnsPath(op.netns))) return { ok: true };
      // All at once; if any is already gone, iptables-restore changes nothing and each is removed on its own.
      const all = await runner.run(inNetns(op.netns, ['iptables-restore', '-w', '--noflush']), {
        input: iptablesRestoreInput('-D', op.rules),
        allowFailure: true,
      });
      if (all.exitCode !== 0)
        for (const rule of op.rules)
          await executeOperation({ op: 'iptables-delete', rule, ...(op.netns ? { netns: op.netns } : {}) }, runner);
      return { ok: true };
    }
    case 'iptables-delete': {
      // A namespace that is gone took its rules with it.
      if (op.netns && !existsSync(netnsPath(op.netns))) return { ok: true };
      const check = await runner.run(inNetns(op.netns, iptablesArgv('-C', op.rule)), { allowFailure: true });
      if (check.exitCode === 0) await runner.run(inNetns(op.netns, iptablesArgv('-D', op.rule)));
      return { ok: true };
    }
  }
}

const hostLinkNames = async (runner: CommandRunner) =>
  new Set(parseLinkList((await runner.run(['ip', '-o', 'link', 'show'])).stdout).map((l) => l.name));

/** A link inside `netns` as cavsim wants it: IPv6 off before it is up, up before its address, then its neighbours. */
async function configureInside(
  runner: CommandRunner,
  netns: NetnsTarget,
  links: Array<{ name: string; mac?: string; cidr?: string; neighbours: Array<{ ip: string; mac: string }>; mtu?: number }>,
): Promise<void> {
  // Before the link is up, so it never sends IPv6 router solicitations onto the channel.
  await runner.run(inNetns(netns, ipv6Off(...links.map((l) => l.name))), { allowFailure: true });
  // Up before the address: a vehicle waiting for its address may use it the instant it appears,
  // and on a link still down its subnet has no route yet (connect: ENETUNREACH).
  await ipBatch(
    runner,
    netns,
    links.flatMap((l) => [
      ...(l.mac ? [['link', 'set', 'dev', l.name, 'address', l.mac]] : []),
      ...(l.mtu ? [['link', 'set', 'dev', l.name, 'mtu', String(l.mtu)]] : []),
      ['link', 'set', 'dev', l.name, 'up'],
      ...(l.cidr ? [['addr', 'add', l.cidr, 'dev', l.name]] : []),
      ...l.neighbours.map((n) => ['neigh', 'replace', n.ip, 'lladdr', n.mac, 'dev', l.name, 'nud', 'permanent']),
    ]),
  );
}

/**
 * Host links in three processes: created (bridges first, as taps and veths join them; a veth's peer
 * is born inside its namespace under its final name), IPv6 off, then all up.
 */
async function createLinks(runner: CommandRunner, alias: string, group: number, links: LinkSpec[]): Promise<void> {
  const rank = { bridge: 0, tap: 1, veth: 2 } as const;
  const ordered = [...links].sort((a, b) => rank[a.kind] - rank[b.kind]);
  const created = ordered.flatMap((l): string[][] => {
    const named = ['link', 'set', 'dev', l.name, 'alias', alias, 'group', String(group)];
    switch (l.kind) {
      case 'bridge':
        return [bridgeAddArgv(l.name).slice(1), named, ...(l.cidr ? [['addr', 'add', l.cidr, 'dev', l.name]] : [])];
      case 'tap':
        return [
          ['tuntap', 'add', 'dev', l.name, 'mode', 'tap', 'user', String(l.uid)],
          named,
          ['link', 'set', 'dev', l.name, 'master', l.bridge],
        ];
      case 'veth': {
        const where = 'pid' in l.netns ? String(l.netns.pid) : l.netns.name;
        return [
          ['link', 'add', 'name', l.name, 'type', 'veth', 'peer', 'name', l.peer, 'netns', where],
          named,
          ...(l.bridge ? [['link', 'set', 'dev', l.name, 'master', l.bridge]] : []),
        ];
      }
    }
  });
  await ipBatch(runner, undefined, created);
  await runner.run(ipv6Off(...ordered.map((l) => l.name)), { allowFailure: true });
  await ipBatch(
    runner,
    undefined,
    ordered.map((l) => ['link', 'set', 'dev', l.name, 'up']),
  );
}

/** One `ip -o link show dev X` line: its alias, its bridge and whether it is set up (the UP flag). */
export function parseLinkState(line: string): { alias?: string; master?: string; up: boolean } {
  const alias = /\balias (\S+)/.exec(line)?.[1];
  const master = /\bmaster (\S+)/.exec(line)?.[1];
  const flags = /<([^>]*)>/.exec(line)?.[1].split(',') ?? [];
  return { ...(alias ? { alias } : {}), ...(master ? { master } : {}), up: flags.includes('UP') };
}

/** `ip -o link show` lines: `3: br-x: <...> ... alias cavsim:run`, a veth's name as `name@peer`. */
export function parseLinkList(stdout: string): Array<{ name: string; alias?: string }> {
  return stdout
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)(?:@\S+)?:/.exec(line) && { line, name: /^\d+:\s+([^:@\s]+)/.exec(line)![1] })
    .filter((l): l is { line: string; name: string } => !!l)
    .map(({ line, name }) => {
      const alias = /\balias (\S+)/.exec(line)?.[1];
      return alias ? { name, alias } : { name };
    });
}

/** `ip -d -o link show type vxlan` lines: name, `vxlan id N`, `dstport P` (the kernel's default 8472 when absent), alias. */
export function parseVxlanList(stdout: string): Array<{ name: string; vni: number; port: number; alias?: string }> {
  return stdout.split('\n').flatMap((line) => {
    const name = /^\d+:\s+([^:@\s]+)/.exec(line)?.[1];
    const vni = /\bvxlan id (\d+)/.exec(line)?.[1];
    if (!name || !vni) return [];
    const alias = /\balias (\S+)/.exec(line)?.[1];
    const port = /\bdstport (\d+)/.exec(line)?.[1];
    return [{ name, vni: Number(vni), port: Number(port ?? 8472), ...(alias ? { alias } : {}) }];
  });
}
