import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../../src/errors.js';
import { Journal } from '../../../../src/host/journal/journal.js';
import { HOSTNET_KINDS } from '../../../../src/host/journal/kinds.js';
import { planHostNetwork } from '../../../../src/host/network/plan.js';
import { setUpHostNetwork, teardownHostNet } from '../../../../src/host/network/set-up.js';
import { FakeHost } from './fake-host.js';

const plan = planHostNetwork({
  runId: 'unit-run',
  vehicles: [
    { name: 'a', netns: { pid: 101 } },
    { name: 'b', netns: { name: 'stand-in-b' } },
    { name: 'c', netns: { pid: 103 } },
  ],
  control: { subnet: '172.18.0.0/16', simulatorIp: '172.18.0.2' },
});
const scratch = mkdtempSync(join(tmpdir(), 'cavsim-unit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let journals = 0;
const freshJournal = () => Journal.open(join(scratch, `journal-${++journals}.jsonl`));

describe('setUpHostNetwork against a recording host', () => {
  it('builds bridge, tap, eth1 and rules per vehicle, journaling each first, and teardown empties the host', async () => {
    const journal = freshJournal();
    const host = new FakeHost(journal);
    const empty = host.state();
    const net = await setUpHostNetwork(plan, { journal, ops: host });
    const state = host.state();
    for (const v of plan.vehicles) {
      expect(state.links).toContain(`host/${v.links.bridge}`);
      expect(state.links).toContain(`host/${v.links.tap}`);
      expect(state.links).toContain(`host/${v.links.vethHost}`);
      expect(state.links).not.toContain(`host/${v.links.vethPeer}`);
    }
    expect(state.links).toContain('pid:101/eth1');
    expect(state.links).toContain('name:stand-in-b/eth1');
    expect(state.rules).toHaveLength(3 + 3 * 5);
    expect(net.hostChain).toBe('DOCKER-USER');
    const kinds = journal.outstanding().map((e) => e.kind);
    // the host links are one entry, in the run's device group, and each namespace is set up in one call
    const linkEntries = journal.outstanding().filter((e) => e.kind === HOSTNET_KINDS.links);
    expect(linkEntries.map((e) => (e.undo as { names: string[] }).names.length)).toEqual([9]);
    expect(new Set(host.groups.values())).toEqual(new Set([plan.linkGroup]));
    expect(host.configured.map((c) => c.netns).sort()).toEqual(['name:stand-in-b', 'pid:101', 'pid:103']);
    expect(host.calls.filter((c) => c.op.startsWith('create'))).toHaveLength(1);
    // one transaction (and one entry) for the host's rules and one per vehicle namespace
    expect(kinds.filter((k) => k === HOSTNET_KINDS.iptablesSet)).toHaveLength(1 + 3);

    expect((await net.teardown()).failed).toEqual([]);
    expect(host.state()).toEqual(empty);
    expect(host.deletedOutsideGroup).toEqual([]);
    await net.teardown(); // a second call is harmless
    expect(journal.outstanding()).toEqual([]);
  });

  it('plumbs the control network: the bridge with the host address, eth0 in the simulator and each vehicle; teardown removes it', async () => {
    const withControl = planHostNetwork({
      runId: 'unit-run-control',
      vehicles: [
        { name: 'a', netns: { pid: 101 } },
        { name: 'b', netns: { pid: 102 } },
      ],
      control: {
        subnet: '10.211.7.0/24',
        simulatorIp: '10.211.7.2',
        hostIp: '10.211.7.1',
        members: [
          { ip: '10.211.7.2', netns: { pid: 100 } },
          { vehicle: 'a', ip: '10.211.7.10', netns: { pid: 101 } },
          { vehicle: 'b', ip: '10.211.7.11', netns: { pid: 102 } },
        ],
      },
    });
    const journal = freshJournal();
    const host = new FakeHost(journal);
    const empty = host.state();
    const net = await setUpHostNetwork(withControl, { journal, ops: host });
    const state = host.state();
    expect(state.links).toContain(`host/${withControl.controlNet!.bridge}`);
    for (const pid of [100, 101, 102]) expect(state.links).toContain(`pid:${pid}/eth0`);
    expect(state.links).toContain('pid:101/eth1');
    expect(state.links).not.toContain('pid:100/eth1');
    await net.teardown();
    expect(host.state()).toEqual(empty);
  });

  it('falls back to FORWARD when Docker has not made DOCKER-USER', async () => {
    const journal = freshJournal();
    const host = new FakeHost(journal);
    host.chains.clear();
    const net = await setUpHostNetwork(plan, { journal, ops: host });
    expect(net.hostChain).toBe('FORWARD');
    expect([...host.rules].filter((r) => r.includes('"chain":"FORWARD"'))).toHaveLength(3);
    await net.teardown();
    expect(host.state().rules).toEqual([]);
  });

  it('unwinds completely whichever call fails', async () => {
    const total = new FakeHost();
    await setUpHostNetwork(plan, { journal: freshJournal(), ops: total });
    for (let n = 1; n <= total.calls.length; n++) {
      const journal = freshJournal();
      const host = new FakeHost(journal);
      const empty = host.state();
      host.failOnCall = n;
      await expect(setUpHostNetwork(plan, { journal, ops: host })).rejects.toThrow(`injected failure on call ${n}`);
      expect(host.state(), `failure at call ${n}`).toEqual(empty);
      expect(journal.outstanding()).toEqual([]);
    }
  });

  it.each([
    ['a host link', (h: FakeHost) => h.inside('host').set(plan.vehicles[1].links.tap, undefined), plan.vehicles[1].links.tap],
    ['eth1 inside a vehicle', (h: FakeHost) => h.inside('pid:103').set('eth1', undefined), 'eth1'],
    [
      "another run's bridge",
      (h: FakeHost) => h.inside('host').set(plan.vehicles[0].links.bridge, 'cavsim:other-run'),
      'another cavsim run',
    ],
  ])('refuses when %s is taken, creating nothing and removing nothing', async (_what, occupy, mention) => {
    const journal = freshJournal();
    const host = new FakeHost(journal);
    occupy(host);
    const before = host.state();
    const attempt = setUpHostNetwork(plan, { journal, ops: host });
    await expect(attempt).rejects.toBeInstanceOf(EnvironmentError);
    await expect(attempt).rejects.toSatisfy((e: EnvironmentError) => `${e.message} ${e.hint}`.includes(mention));
    expect(host.state()).toEqual(before);
    expect(host.calls.every((c) => c.op === 'link-info' || c.op === 'link-list' || c.op === 'chain-exists')).toBe(true);
  });

  it("leaves other modules' journal entries for their own undoers", async () => {
    const journal = freshJournal();
    const host = new FakeHost(journal);
    journal.record('docker.container', 'sim', { id: 'abc' });
    const net = await setUpHostNetwork(plan, { journal, ops: host });
    const report = await net.teardown();
    expect(report.failed).toEqual([]);
    expect(journal.outstanding().map((e) => e.kind)).toEqual(['docker.container']);
    expect((await teardownHostNet(journal, host)).undone).toEqual([]);
  });
});

describe('a device joined to the channel by its host interface', () => {
  const withDevice = planHostNetwork({
    runId: 'unit-dev',
    vehicles: [
      { name: 'a', netns: { pid: 101 } },
      { name: 'rc', device: { interface: 'enp3s0', mac: '02:00:00:00:00:09' } },
    ],
    control: { subnet: '172.18.0.0/16', simulatorIp: '172.18.0.2' },
  });

  it('joins the existing interface to its bridge, adds no veth or rules for it, and teardown releases it as it was', async () => {
    const journal = freshJournal();
    const host = new FakeHost(journal);
    host.inside('host').set('enp3s0', undefined); // the device's NIC, down and in no bridge
    const before = host.state();
    const dev = withDevice.vehicles[1];
    const net = await setUpHostNetwork(withDevice, { journal, ops: host });
    expect(host.masters.get('enp3s0')).toBe(dev.links.bridge);
    expect(host.state().links).not.toContain(`host/${dev.links.vethHost}`);
    expect(dev.rules).toEqual([]);
    expect(withDevice.vehicles[0].neighbours).toContainEqual({ ip: dev.ip, mac: '02:00:00:00:00:09' });
    expect(
      journal
        .outstanding()
        .filter((e) => e.kind === HOSTNET_KINDS.deviceLink)
        .map((e) => e.undo),
    ).toEqual([{ name: 'enp3s0', bridge: dev.links.bridge, wasUp: false }]);
    expect((await net.teardown()).failed).toEqual([]);
    expect(host.state()).toEqual(before);
    expect(host.inside('host').has('enp3s0')).toBe(true);
  });

  it('keeps an interface that was up, up', async () => {
    const journal = freshJournal();
    const host = new FakeHost(journal);
    host.inside('host').set('enp3s0', undefined);
    host.up.add('enp3s0');
    const before = host.state();
    const net = await setUpHostNetwork(withDevice, { journal, ops: host });
    await net.teardown();
    expect(host.state()).toEqual(before);
  });

  it('refuses a missing interface, one in a bridge, or one of cavsim, before creating anything', async () => {
    for (const [prepare, message] of [
      [() => {}, /no interface "enp3s0"/],
      [
        (h: FakeHost) => {
          h.inside('host').set('enp3s0', undefined);
          h.masters.set('enp3s0', 'br0');
        },
        /already belongs to bridge br0/,
      ],
      [(h: FakeHost) => h.inside('host').set('enp3s0', 'cavsim:other-run'), /was created by cavsim/],
    ] as const) {
      const journal = freshJournal();
      const host = new FakeHost(journal);
      prepare(host);
      const before = host.state();
      await expect(setUpHostNetwork(withDevice, { journal, ops: host })).rejects.toThrow(message);
      expect(host.state()).toEqual(before);
      expect(host.calls.some((c) => c.op.startsWith('create'))).toBe(false);
    }
  });
});
