import { describe, expect, it } from 'vitest';
import type { CommandRunner } from '../../../../src/host/exec/command-runner.js';
import { executeOperation } from '../../../../src/host/network/execute.js';

/** A runner that records each command with its stdin and answers `ip -o link show` from `links`. */
function scriptedHost(links: Array<{ name: string; group: number }>) {
  const calls: Array<{ argv: string[]; input?: string }> = [];
  const listing = (only?: number) =>
    links
      .filter((l) => only === undefined || l.group === only)
      .map(
        (l, i) =>
          `${i + 2}: ${l.name}: <BROADCAST,MULTICAST,UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000\\    link/ether 02:00:00:00:00:0${i} brd ff:ff:ff:ff:ff:ff`,
      )
      .join('\n');
  const runner: CommandRunner = {
    async run(argv, opts) {
      calls.push({ argv: [...argv], ...(opts?.input ? { input: opts.input } : {}) });
      const a = argv.join(' ');
      if (a.startsWith('ip -o link show group ')) return { stdout: listing(Number(argv.at(-1))), stderr: '', exitCode: 0 };
      if (a === 'ip -o link show') return { stdout: listing(), stderr: '', exitCode: 0 };
      if (a.startsWith('ip link delete group ')) links = links.filter((l) => l.group !== Number(argv.at(-1)));
      if (a === 'ip -force -batch -') {
        const gone = new Set(
          opts!
            .input!.trim()
            .split('\n')
            .map((line) => line.split(' ').at(-1)),
        );
        links = links.filter((l) => !gone.has(l.name));
      }
      return { stdout: '', stderr: '', exitCode: 0 };
    },
  };
  return { calls, runner, left: () => links.map((l) => l.name) };
}

describe('host links in one batch', () => {
  it('creates any number of links in three processes: bridges first, each veth peer born in its namespace, IPv6 off before up', async () => {
    const { calls, runner } = scriptedHost([]);
    const links = Array.from({ length: 40 }, (_, i) => [
      { kind: 'veth' as const, name: `cv-abc-${i}h`, bridge: `br-abc-${i}`, peer: 'eth1', netns: { pid: 100 + i } },
      { kind: 'tap' as const, name: `tap-abc-${i}`, bridge: `br-abc-${i}`, uid: 0 },
      { kind: 'bridge' as const, name: `br-abc-${i}` },
    ]).flat();
    await executeOperation({ op: 'create-links', alias: 'cavsim:run-1', group: 77, links }, runner);
    expect(calls.map((c) => c.argv[0])).toEqual(['ip', 'sysctl', 'ip']);
    const created = calls[0].input!.trim().split('\n');
    expect(created.findLastIndex((l) => l.includes('type bridge'))).toBeLessThan(created.findIndex((l) => l.startsWith('tuntap add')));
    expect(created).toContain('link add name cv-abc-3h type veth peer name eth1 netns 103');
    expect(created).toContain('link set dev cv-abc-3h alias cavsim:run-1 group 77');
    expect(created).toContain('link set dev cv-abc-3h master br-abc-3');
    expect(calls[1].argv).toContain('net/ipv6/conf/cv-abc-3h/disable_ipv6=1');
    expect(calls[2].input!.trim().split('\n')).toHaveLength(120);
  });

  it('deletes its group in one kernel batch when every link in the group is its own', async () => {
    const host = scriptedHost([
      { name: 'br-abc-0', group: 77 },
      { name: 'cv-abc-0h', group: 77 },
      { name: 'eth0', group: 0 },
    ]);
    await executeOperation({ op: 'delete-links', names: ['br-abc-0', 'cv-abc-0h'], group: 77 }, host.runner);
    expect(host.calls.map((c) => c.argv.join(' '))).toContain('ip link delete group 77');
    expect(host.calls.some((c) => c.argv.includes('-force'))).toBe(false);
    expect(host.left()).toEqual(['eth0']);
  });

  it('deletes by name, leaving the group alone, when a link not in its list shares the group number', async () => {
    const host = scriptedHost([
      { name: 'br-abc-0', group: 77 },
      { name: 'users-link', group: 77 },
    ]);
    await executeOperation({ op: 'delete-links', names: ['br-abc-0'], group: 77 }, host.runner);
    expect(host.calls.some((c) => c.argv.join(' ') === 'ip link delete group 77')).toBe(false);
    expect(host.left()).toEqual(['users-link']);
  });

  it('is done when the links are already gone, and fails naming a link that stays', async () => {
    const gone = scriptedHost([]);
    await expect(executeOperation({ op: 'delete-links', names: ['br-abc-0'], group: 77 }, gone.runner)).resolves.toEqual({ ok: true });
    const stubborn = scriptedHost([{ name: 'br-abc-0', group: 0 }]);
    stubborn.runner.run = async (argv) => ({
      stdout: argv.join(' ') === 'ip -o link show' ? '2: br-abc-0: <UP> mtu 1500' : '',
      stderr: '',
      exitCode: 0,
    });
    await expect(executeOperation({ op: 'delete-links', names: ['br-abc-0'] }, stubborn.runner)).rejects.toThrow(
      /could not delete links br-abc-0/,
    );
  });

  it('sets up links inside a namespace in two processes, IPv6 off first', async () => {
    const { calls, runner } = scriptedHost([]);
    await executeOperation(
      {
        op: 'configure-links',
        netns: { pid: 42 },
        links: [
          { name: 'eth0', cidr: '10.211.0.10/24' },
          { name: 'eth1', mac: '02:ca:00:00:00:01', cidr: '10.210.0.1/24', neighbours: [{ ip: '10.210.0.2', mac: '02:ca:00:00:00:02' }] },
        ],
      },
      runner,
    );
    expect(calls.map((c) => c.argv.slice(0, 3))).toEqual([
      ['nsenter', '--net=/proc/42/ns/net', 'sysctl'],
      ['nsenter', '--net=/proc/42/ns/net', 'ip'],
    ]);
    const lines = calls[1].input!.trim().split('\n');
    expect(lines.indexOf('link set dev eth1 up')).toBeLessThan(lines.indexOf('addr add 10.210.0.1/24 dev eth1'));
    expect(lines).toContain('neigh replace 10.210.0.2 lladdr 02:ca:00:00:00:02 dev eth1 nud permanent');
  });

  it('refuses a link list over the batch limit or a group of 0', async () => {
    const { runner } = scriptedHost([]);
    await expect(executeOperation({ op: 'delete-links', names: ['br-abc-0'], group: 0 }, runner)).rejects.toThrow();
    await expect(
      executeOperation({ op: 'delete-links', names: Array.from({ length: 1025 }, (_, i) => `l${i}`) }, runner),
    ).rejects.toThrow();
  });
});
