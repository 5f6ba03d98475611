import { EnvironmentError, UserInputError } from '../../errors.js';
import type { Journal } from '../journal/journal.js';
import { HOSTNET_KINDS } from '../journal/kinds.js';
import type { HostNetOps } from './hostnet-port.js';
import type { HostNetResult, InsideLink, IptablesRule, LinkSpec, NetnsTarget } from './operation-schema.js';
import type { DeviceLinkUndo, IptablesSetUndo, IptablesUndo, LinksUndo } from './undoers.js';

/**
 * Creation steps that write their inverse to the journal first, and refuse names that exist but
 * are not ours. Shared by the set-up of vehicles and by test/bench stand-ins.
 */
export class JournaledHostNet {
  /**
   * Names found free in this set-up and not yet created: creating one then needs no second look
   * (a look is a process, ~15 ms; at 32 cars they were a third of the host network's start).
   */
  private readonly knownFree = new Set<string>();

  constructor(
    readonly journal: Journal,
    readonly ops: HostNetOps,
    readonly alias: string,
  ) {}

  async assertLinkFree(name: string, netns?: NetnsTarget): Promise<void> {
    const key = linkKey(name, netns);
    if (this.knownFree.delete(key)) return;
    assertFree(name, netns, await this.ops.run({ op: 'link-info', name, ...(netns ? { netns } : {}) }));
    this.knownFree.add(key);
  }

  /** Every name at once, from one listing of the host's links: refuses before anything is created. */
  async assertHostLinksFree(names: readonly string[]): Promise<void> {
    await this.assertLinksFreeIn(undefined, names);
    for (const name of names) this.knownFree.add(linkKey(name));
  }

  /** Names inside one namespace (the host's: undefined), from one listing of its links. */
  async assertLinksFreeIn(netns: NetnsTarget | undefined, names: readonly string[]): Promise<void> {
    const links = new Map(
      ((await this.ops.run({ op: 'link-list', ...(netns ? { netns } : {}) })).links ?? []).map((l) => [l.name, l.alias]),
    );
    for (const name of names)
      assertFree(name, netns, { ok: true, exists: links.has(name), ...(links.get(name) ? { alias: links.get(name) } : {}) });
  }

  /**
   * Many host links as one journal entry and one operation (three processes, not a few per link).
   * Their host names must have been checked free by `assertHostLinksFree`, and each veth's peer name
   * inside its namespace by `assertLinksFreeIn`.
   */
  async createLinks(links: LinkSpec[], group: number): Promise<void> {
    if (!links.length) return;
    const unchecked = links.filter((l) => !this.knownFree.has(linkKey(l.name)));
    if (unchecked.length) throw new Error(`createLinks: ${unchecked.map((l) => l.name).join(', ')} not checked free first`);
    for (const l of links) this.knownFree.delete(linkKey(l.name));
    const undo: LinksUndo = { names: links.map((l) => l.name), group };
    this.journal.record(HOSTNET_KINDS.links, `${links.length} links ${links[0].name}`, { ...undo });
    await this.ops.run({ op: 'create-links', alias: this.alias, group, links });
  }

  /** Links `createLinks` put into `netns`: addresses, MACs and neighbours (they go when the links go). */
  async configureLinks(netns: NetnsTarget, links: InsideLink[]): Promise<void> {
    await this.ops.run({ op: 'configure-links', netns, links });
  }

  async createNetns(name: string): Promise<void> {
    if ((await this.ops.run({ op: 'netns-info', name })).exists) {
      throw new EnvironmentError(
        `network namespace "${name}" already exists; cavsim will not touch it`,
        'remove it yourself or choose another run id',
      );
    }
    this.journal.record(HOSTNET_KINDS.netns, name, { name });
    await this.ops.run({ op: 'create-netns', name });
  }

  /** `cidr`: an address for the host on the bridge. */
  async createBridge(name: string, cidr?: string): Promise<void> {
    await this.assertLinkFree(name);
    this.journal.record(HOSTNET_KINDS.link, name, { name });
    await this.ops.run({ op: 'create-bridge', name, alias: this.alias, ...(cidr ? { cidr } : {}) });
    await this.ops.run({ op: 'link-up', name });
  }

  async createTap(name: string, bridge: string, uid: number): Promise<void> {
    await this.assertLinkFree(name);
    this.journal.record(HOSTNET_KINDS.link, name, { name });
    await this.ops.run({ op: 'create-tap', name, alias: this.alias, uid });
    await this.ops.run({ op: 'enslave', name, bridge });
  }

  /** A veth pair: `hostEnd` joins `bridge` (if given); `peer` moves into `netns` as `insideName`. */
  async createVeth(p: {
    hostEnd: string;
    peer: string;
    bridge?: string;
    netns: NetnsTarget;
    insideName: string;
    mac?: string;
    cidr?: string;
    neighbours?: Array<{ ip: string; mac: string }>;
  }): Promise<void> {
    await this.assertLinkFree(p.hostEnd);
    await this.assertLinkFree(p.peer);
    await this.assertLinkFree(p.insideName, p.netns);
    // Deleting the host end deletes the pair, wherever the peer has moved.
    this.journal.record(HOSTNET_KINDS.link, p.hostEnd, { name: p.hostEnd });
    await this.ops.run({ op: 'create-veth', name: p.hostEnd, peer: p.peer, alias: this.alias });
    if (p.bridge) await this.ops.run({ op: 'enslave', name: p.hostEnd, bridge: p.bridge });
    await this.ops.run({
      op: 'move-into-netns',
      name: p.peer,
      netns: p.netns,
      newName: p.insideName,
      ...(p.mac ? { mac: p.mac } : {}),
      ...(p.cidr ? { cidr: p.cidr } : {}),
      neighbours: p.neighbours ?? [],
    });
  }

  /**
   * A device's interface on the host (a NIC, a VLAN, a veth to a namespace) that must exist, belong
   * to no bridge and not be cavsim's: refused here, before anything of the run is created.
   */
  async assertDeviceInterfaceUsable(name: string, field: string): Promise<void> {
    const info = await this.ops.run({ op: 'link-info', name });
    const fix = 'name an interface that the device alone uses (a second NIC, a VLAN such as eth0.42, or a veth), not in a bridge';
    if (!info.exists)
      throw new UserInputError(`${field}: there is no interface "${name}" on this host`, [fix, 'list them with `ip -br link`']);
    if (info.alias?.startsWith('cavsim:'))
      throw new UserInputError(`${field}: "${name}" was created by cavsim (${info.alias}), not a device's interface`, [fix]);
    if (info.master)
      throw new UserInputError(`${field}: "${name}" already belongs to bridge ${info.master}`, [
        fix,
        `or release it: ip link set dev ${name} nomaster`,
      ]);
  }

  /** Joins a device's existing interface to `bridge`; teardown releases it (never deletes it) and restores its up/down state. */
  async joinDevice(name: string, bridge: string): Promise<void> {
    const info = await this.ops.run({ op: 'link-info', name });
    const undo: DeviceLinkUndo = { name, bridge, wasUp: info.up === true };
    this.journal.record(HOSTNET_KINDS.deviceLink, name, { ...undo });
    await this.ops.run({ op: 'enslave', name, bridge });
  }

  async addRule(rule: IptablesRule, position: 'insert' | 'append', netns?: NetnsTarget): Promise<void> {
    const undo: IptablesUndo = { rule, ...(netns ? { netns } : {}) };
    this.journal.record(HOSTNET_KINDS.iptables, `${netns ? `${JSON.stringify(netns)} ` : ''}${rule.chain} ${rule.jump}`, { ...undo });
    await this.ops.run({ op: 'iptables-add', rule, position, ...(netns ? { netns } : {}) });
  }

  /** Rules in order, as one transaction and one journal entry: one process instead of one per rule. */
  async addRules(rules: IptablesRule[], position: 'insert' | 'append', netns?: NetnsTarget): Promise<void> {
    if (!rules.length) return;
    const undo: IptablesSetUndo = { rules, ...(netns ? { netns } : {}) };
    this.journal.record(HOSTNET_KINDS.iptablesSet, `${netns ? `${JSON.stringify(netns)} ` : ''}${rules.length} rules ${rules[0].chain}`, {
      ...undo,
    });
    await this.ops.run({ op: 'iptables-add-all', rules, position, ...(netns ? { netns } : {}) });
  }
}

const linkKey = (name: string, netns?: NetnsTarget) => `${netns ? JSON.stringify(netns) : 'host'}/${name}`;

function assertFree(name: string, netns: NetnsTarget | undefined, info: HostNetResult): void {
  if (!info.exists) return;
  const where = netns ? ` inside ${'pid' in netns ? `pid ${netns.pid}` : `netns ${netns.name}`}` : '';
  throw new EnvironmentError(
    `interface "${name}" already exists${where}${info.alias ? ` (alias ${info.alias})` : ''}; cavsim will not touch it`,
    info.alias?.startsWith('cavsim:')
      ? `it belongs to another cavsim run (${info.alias}); tear that run down first`
      : `remove or rename it yourself, or choose another run id`,
  );
}
