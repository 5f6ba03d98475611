import { describe, expect, it } from 'vitest';
import type { CommandRunner } from '../../../../src/host/exec/command-runner.js';
import { executeOperation } from '../../../../src/host/network/execute.js';

describe('bridges on the V2V path', () => {
  it('are created without multicast snooping or STP, so the bridge itself puts no frame on the bus', async () => {
    const argvs: string[][] = [];
    const runner: CommandRunner = {
      async run(argv, opts) {
        argvs.push(opts?.input ? [...argv, ...opts.input.trim().split('\n')] : [...argv]);
        return { stdout: '', stderr: '', exitCode: 0 };
      },
    };
    await executeOperation({ op: 'create-bridge', name: 'br-abc123-0', alias: 'cavsim:run-1' }, runner);
    expect(argvs[0]).toEqual([
      'ip',
      '-batch',
      '-',
      'link add name br-abc123-0 type bridge mcast_snooping 0 stp_state 0',
      'link set dev br-abc123-0 alias cavsim:run-1',
    ]);
    expect(argvs).toContainEqual(['sysctl', '-q', '-w', 'net/ipv6/conf/br-abc123-0/disable_ipv6=1']);
  });
});

describe('plumbing one vehicle', () => {
  const recordingRunner = () => {
    const calls: Array<{ argv: string[]; input?: string }> = [];
    const runner: CommandRunner = {
      async run(argv, opts) {
        calls.push({ argv: [...argv], ...(opts?.input ? { input: opts.input } : {}) });
        return { stdout: '', stderr: '', exitCode: 0 };
      },
    };
    return { calls, runner };
  };

  it('takes the same number of processes however many neighbours its eth1 gets (it took one per neighbour)', async () => {
    const processes = async (neighbours: number) => {
      const { calls, runner } = recordingRunner();
      const list = Array.from({ length: neighbours }, (_, i) => ({
        ip: `10.210.0.${i + 2}`,
        mac: `02:ca:00:00:00:${(i + 2).toString(16).padStart(2, '0')}`,
      }));
      await executeOperation(
        {
          op: 'move-into-netns',
          name: 'vp-abc-0',
          netns: { pid: 42 },
          newName: 'eth1',
          mac: '02:ca:00:00:00:01',
          cidr: '10.210.0.1/24',
          neighbours: list,
        },
        runner,
      );
      return calls;
    };
    const few = await processes(1);
    const many = await processes(47);
    expect(many).toHaveLength(few.length);
    expect(many.length).toBeLessThanOrEqual(4);
    const batch = many.find((c) => c.argv.includes('-batch'))!;
    expect(batch.argv).toEqual(['nsenter', '--net=/proc/42/ns/net', 'ip', '-batch', '-']);
    expect(
      batch
        .input!.trim()
        .split('\n')
        .filter((l) => l.startsWith('neigh replace')),
    ).toHaveLength(47);
    // IPv6 goes off before the link comes up, so no router solicitation reaches the channel
    const sysctl = many.findIndex((c) => c.argv.includes('sysctl'));
    expect(sysctl).toBeGreaterThan(-1);
    expect(sysctl).toBeLessThan(many.indexOf(batch));
  });

  it("adds a namespace's rules in one iptables-restore transaction, in order, and removes them the same way", async () => {
    const { calls, runner } = recordingRunner();
    const rule = (destination: string, jump: 'ACCEPT' | 'DROP') => ({
      chain: 'OUTPUT' as const,
      out: 'eth0',
      ...(destination ? { destination } : {}),
      jump,
      comment: 'cavsim:run-1',
    });
    const rules = [rule('10.211.0.2/32', 'ACCEPT'), rule('', 'DROP')];
    await executeOperation({ op: 'iptables-add-all', netns: { pid: 42 }, rules, position: 'append' }, runner);
    expect(calls).toEqual([
      {
        argv: ['nsenter', '--net=/proc/42/ns/net', 'iptables-restore', '-w', '--noflush'],
        input:
          '*filter\n-A OUTPUT -o eth0 -d 10.211.0.2/32 -m comment --comment cavsim:run-1 -j ACCEPT\n-A OUTPUT -o eth0 -m comment --comment cavsim:run-1 -j DROP\nCOMMIT\n',
      },
    ]);
  });

  it('removes the rules one by one when the transaction fails because one of them is already gone', async () => {
    const argvs: string[][] = [];
    const runner: CommandRunner = {
      async run(argv) {
        argvs.push([...argv]);
        const missing = argv.includes('-C') && argv.includes('DROP');
        return { stdout: '', stderr: '', exitCode: argv.includes('iptables-restore') || missing ? 1 : 0 };
      },
    };
    const rule = (jump: 'ACCEPT' | 'DROP') => ({ chain: 'DOCKER-USER' as const, in: 'br-abc-0', jump, comment: 'cavsim:run-1' });
    await executeOperation({ op: 'iptables-delete-all', rules: [rule('ACCEPT'), rule('DROP')] }, runner);
    const deletes = argvs.filter((a) => a.includes('-D'));
    expect(deletes).toHaveLength(1);
    expect(deletes[0]).toContain('ACCEPT');
  });
});

describe('the host link listing', () => {
  it("reads names and cavsim aliases from 'ip -o link show', a veth's name without its peer", async () => {
    const { parseLinkList } = await import('../../../../src/host/network/execute.js');
    const out = [
      '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00',
      '7: br-abc-0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000\\    link/ether 6e:1d:55:aa:01:02 brd ff:ff:ff:ff:ff:ff\\    alias cavsim:run-1',
      '9: cv-abc-0h@if8: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue master br-abc-0 state UP mode DEFAULT group default qlen 1000\\    link/ether 2a:aa:bb:cc:dd:ee brd ff:ff:ff:ff:ff:ff link-netnsid 3\\    alias cavsim:run-1',
    ].join('\n');
    expect(parseLinkList(out)).toEqual([
      { name: 'lo' },
      { name: 'br-abc-0', alias: 'cavsim:run-1' },
      { name: 'cv-abc-0h', alias: 'cavsim:run-1' },
    ]);
  });
});

describe('one link state', () => {
  it("reads a link's bridge, alias and UP flag from 'ip -o link show dev X'", async () => {
    const { parseLinkState } = await import('../../../../src/host/network/execute.js');
    expect(
      parseLinkState(
        '9: dv-h@if8: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue master br-abc-1 state UP mode DEFAULT group default qlen 1000\\    link/ether 2a:aa:bb:cc:dd:ee brd ff:ff:ff:ff:ff:ff',
      ),
    ).toEqual({ master: 'br-abc-1', up: true });
    expect(
      parseLinkState(
        '4: enp3s0: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN mode DEFAULT group default qlen 1000\\    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff\\    alias cavsim:run-2',
      ),
    ).toEqual({ alias: 'cavsim:run-2', up: false });
  });

  it('releases a device interface only from the bridge it joined, and sets it down only if asked', async () => {
    const { executeOperation } = await import('../../../../src/host/network/execute.js');
    const argvs: string[][] = [];
    const inputs: string[] = [];
    const line = (master: string) =>
      `4: enp3s0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 master ${master} state UP\\    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff`;
    let master = 'br-abc-1';
    const runner = {
      run: async (argv: string[], opts?: { input?: string }) => {
        argvs.push(argv);
        if (opts?.input) inputs.push(opts.input);
        return { exitCode: 0, stdout: argv.includes('show') ? line(master) : '', stderr: '' };
      },
    };
    await executeOperation({ op: 'leave-bridge', name: 'enp3s0', bridge: 'br-abc-1', down: true }, runner as never);
    expect(inputs).toEqual(['link set dev enp3s0 nomaster\nlink set dev enp3s0 down\n']);
    master = 'br-someone-else';
    await executeOperation({ op: 'leave-bridge', name: 'enp3s0', bridge: 'br-abc-1', down: false }, runner as never);
    expect(inputs).toHaveLength(1);
  });
});
