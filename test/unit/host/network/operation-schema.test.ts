import { describe, expect, it } from 'vitest';
import { iptablesArgv } from '../../../../src/host/network/iptables-argv.js';
import { hostNetOperationSchema } from '../../../../src/host/network/operation-schema.js';

const ok = (op: unknown) => hostNetOperationSchema.safeParse(op).success;

describe('privileged operation validation', () => {
  it('accepts well-formed operations', () => {
    expect(ok({ op: 'create-bridge', name: 'br-a1b2c3-0', alias: 'cavsim:run-1' })).toBe(true);
    expect(
      ok({
        op: 'move-into-netns',
        name: 'cv-a1b2c3-0v',
        netns: { pid: 4242 },
        newName: 'eth1',
        mac: '02:ca:a1:b2:00:00',
        cidr: '10.210.3.1/24',
        neighbours: [{ ip: '10.210.3.2', mac: '02:ca:a1:b2:00:01' }],
      }),
    ).toBe(true);
    expect(
      ok({
        op: 'iptables-add',
        netns: { name: 'cvt-x' },
        position: 'append',
        rule: { chain: 'INPUT', in: 'eth0', source: '172.18.0.2/32', jump: 'ACCEPT', comment: 'cavsim:r' },
      }),
    ).toBe(true);
  });

  it.each([
    ['a name over 15 characters', { op: 'create-bridge', name: 'br-0123456789abc', alias: 'cavsim:r' }],
    ['a name with shell syntax', { op: 'create-bridge', name: 'br;reboot', alias: 'cavsim:r' }],
    ['a name with a space', { op: 'delete-link', name: 'eth0 up' }],
    ['a name starting with a dash', { op: 'delete-link', name: '-all' }],
    ['an alias that is not a cavsim tag', { op: 'create-tap', name: 'tap-x', alias: 'mine', uid: 0 }],
    ['a bad address', { op: 'move-into-netns', name: 'a', netns: { pid: 1 }, newName: 'eth1', cidr: '10.210.3.300/24' }],
    ['a negative pid', { op: 'move-into-netns', name: 'a', netns: { pid: -1 }, newName: 'eth1' }],
    ['a netns path', { op: 'create-netns', name: '../../etc' }],
    ['an arbitrary jump target', { op: 'iptables-add', position: 'insert', rule: { chain: 'FORWARD', jump: 'LOG', comment: 'cavsim:r' } }],
    ['an unknown operation', { op: 'run-shell', cmd: 'id' }],
    ['an extra field', { op: 'delete-link', name: 'br-x', force: true }],
  ])('rejects %s', (_why, op) => {
    expect(ok(op)).toBe(false);
  });

  it('pairs every rule with an exact inverse', () => {
    const rule = { chain: 'DOCKER-USER' as const, in: 'br-a-0', out: 'br-a-0', jump: 'ACCEPT' as const, comment: 'cavsim:r1' };
    const add = iptablesArgv('-I', rule);
    expect(add).toEqual([
      'iptables',
      '-w',
      '-t',
      'filter',
      '-I',
      'DOCKER-USER',
      '-i',
      'br-a-0',
      '-o',
      'br-a-0',
      '-m',
      'comment',
      '--comment',
      'cavsim:r1',
      '-j',
      'ACCEPT',
    ]);
    expect(iptablesArgv('-D', rule)).toEqual(add.map((a) => (a === '-I' ? '-D' : a)));
  });
});

describe('a rule for one TCP port', () => {
  it('matches the protocol and destination port, and is removed with the same spec', () => {
    const rule = { chain: 'INPUT' as const, source: '10.213.5.2/32', tcpPort: 9091, jump: 'ACCEPT' as const, comment: 'cavsim:run-1' };
    expect(iptablesArgv('-I', rule)).toEqual([
      'iptables',
      '-w',
      '-t',
      'filter',
      '-I',
      'INPUT',
      '-s',
      '10.213.5.2/32',
      '-p',
      'tcp',
      '--dport',
      '9091',
      '-m',
      'comment',
      '--comment',
      'cavsim:run-1',
      '-j',
      'ACCEPT',
    ]);
    expect(iptablesArgv('-D', rule).slice(5)).toEqual(iptablesArgv('-I', rule).slice(5));
  });
});
