import type { Journal } from '../../../../src/host/journal/journal.js';
import type { HostNetOps } from '../../../../src/host/network/hostnet-port.js';
import type { HostNetOperation, HostNetResult, NetnsTarget } from '../../../../src/host/network/operation-schema.js';

const nsKey = (t: NetnsTarget | undefined) => (t ? ('pid' in t ? `pid:${t.pid}` : `name:${t.name}`) : 'host');

/**
 * A recording host: links per namespace, named namespaces and rules, enough to check that set-up
 * and teardown leave it exactly as found. Can fail on the Nth call, and checks journal-first.
 */
export class FakeHost implements HostNetOps {
  readonly calls: HostNetOperation[] = [];
  readonly links = new Map<string, Map<string, string | undefined>>([['host', new Map()]]);
  readonly netns = new Set<string>();
  readonly rules = new Set<string>();
  /** Host links' bridges and which host links are up. */
  readonly masters = new Map<string, string>();
  readonly up = new Set<string>();
  /** Each host link's device group, as `create-links` set it. */
  readonly groups = new Map<string, number>();
  /** VXLAN devices made by `create-vxlan`: their VNI and port. */
  readonly vxlans = new Map<string, { vni: number; port: number }>();
  /** `configure-links` calls: the namespace and the links it set up. */
  readonly configured: Array<{ netns: string; links: string[] }> = [];
  /** Links `delete-links` had to delete by name, not as members of its group. */
  readonly deletedOutsideGroup: string[] = [];
  failOnCall?: number;
  chains = new Set(['DOCKER-USER']);

  constructor(private readonly journal?: Journal) {}

  inside(ns: string): Map<string, string | undefined> {
    if (!this.links.has(ns)) this.links.set(ns, new Map());
    return this.links.get(ns)!;
  }

  state() {
    return {
      links: [...this.links].flatMap(([ns, m]) => [...m.keys()].map((l) => `${ns}/${l}`)).sort(),
      netns: [...this.netns].sort(),
      rules: [...this.rules].sort(),
      // Only when some link is in a bridge or up: a host with nothing of cavsim's compares as before.
      ...(this.masters.size ? { masters: [...this.masters].map(([l, b]) => `${l}>${b}`).sort() } : {}),
      ...(this.up.size ? { up: [...this.up].sort() } : {}),
    };
  }

  private journaled(id: string) {
    if (this.journal && !this.journal.outstanding().some((e) => e.id === id || JSON.stringify(e.undo).includes(id))) {
      throw new Error(`created ${id} before journaling it`);
    }
  }

  async run(op: HostNetOperation): Promise<HostNetResult> {
    this.calls.push(op);
    if (this.failOnCall === this.calls.length) throw new Error(`injected failure on call ${this.calls.length} (${op.op})`);
    const host = this.inside('host');
    switch (op.op) {
      case 'link-info': {
        const m = this.inside(nsKey(op.netns));
        const master = op.netns ? undefined : this.masters.get(op.name);
        return {
          ok: true,
          exists: m.has(op.name),
          ...(m.get(op.name) ? { alias: m.get(op.name) } : {}),
          ...(master ? { master } : {}),
          up: !op.netns && this.up.has(op.name),
        };
      }
      case 'link-list':
        return { ok: true, links: [...this.inside(nsKey(op.netns))].map(([name, alias]) => (alias ? { name, alias } : { name })) };
      case 'chain-exists':
        return { ok: true, exists: this.chains.has(op.chain) };
      case 'netns-info':
        return { ok: true, exists: this.netns.has(op.name) };
      case 'create-netns':
        this.journaled(op.name);
        this.netns.add(op.name);
        return { ok: true };
      case 'delete-netns':
        this.netns.delete(op.name);
        this.links.delete(`name:${op.name}`);
        return { ok: true };
      case 'create-bridge':
      case 'create-tap':
        this.journaled(op.name);
        if (host.has(op.name)) throw new Error(`File exists: ${op.name}`);
        host.set(op.name, op.alias);
        return { ok: true };
      case 'create-veth':
        this.journaled(op.name);
        host.set(op.name, op.alias);
        host.set(op.peer, `peer-of:${op.name}`);
        return { ok: true };
      case 'link-up':
        if (!host.has(op.name)) throw new Error(`no such device ${op.name}`);
        this.up.add(op.name);
        return { ok: true };
      case 'enslave':
        if (!host.has(op.name)) throw new Error(`no such device ${op.name}`);
        if (!host.get(op.name)?.startsWith('cavsim:') && !host.get(op.name)?.startsWith('peer-of:')) this.journaled(op.name);
        this.masters.set(op.name, op.bridge);
        this.up.add(op.name);
        return { ok: true };
      case 'leave-bridge':
        if (this.masters.get(op.name) !== op.bridge) return { ok: true };
        this.masters.delete(op.name);
        if (op.down) this.up.delete(op.name);
        return { ok: true };
      case 'move-into-netns': {
        const owner = host.get(op.name);
        host.delete(op.name);
        this.inside(nsKey(op.netns)).set(op.newName, owner);
        return { ok: true };
      }
      case 'create-links':
        for (const l of op.links) {
          this.journaled(l.name);
          if (host.has(l.name)) throw new Error(`File exists: ${l.name}`);
        }
        for (const l of op.links) {
          host.set(l.name, op.alias);
          this.groups.set(l.name, op.group);
          if (l.kind !== 'bridge' && l.bridge) this.masters.set(l.name, l.bridge);
          if (l.kind === 'veth') {
            const inside = this.inside(nsKey(l.netns));
            if (inside.has(l.peer)) throw new Error(`File exists: ${l.peer} in ${nsKey(l.netns)}`);
            inside.set(l.peer, `peer-of:${l.name}`);
          }
          this.up.add(l.name);
        }
        return { ok: true };
      case 'configure-links': {
        const inside = this.inside(nsKey(op.netns));
        for (const l of op.links) if (!inside.has(l.name)) throw new Error(`no such device ${l.name} in ${nsKey(op.netns)}`);
        this.configured.push({ netns: nsKey(op.netns), links: op.links.map((l) => l.name) });
        return { ok: true };
      }
      case 'delete-links':
        for (const name of op.names) {
          if (op.group !== undefined && this.groups.get(name) !== op.group && host.has(name)) this.deletedOutsideGroup.push(name);
          await this.run({ op: 'delete-link', name });
          this.calls.pop();
        }
        return { ok: true };
      case 'delete-link':
        host.delete(op.name);
        this.groups.delete(op.name);
        this.masters.delete(op.name);
        this.up.delete(op.name);
        for (const [l, b] of this.masters) if (b === op.name) this.masters.delete(l);
        for (const m of this.links.values()) for (const [k, v] of m) if (v === `peer-of:${op.name}`) m.delete(k);
        return { ok: true };
      case 'create-vxlan':
        this.journaled(op.name);
        if (host.has(op.name)) throw new Error(`File exists: ${op.name}`);
        host.set(op.name, op.alias);
        this.vxlans.set(op.name, { vni: op.vni, port: op.port });
        if (op.bridge) {
          this.masters.set(op.name, op.bridge);
          this.up.add(op.name);
        }
        return { ok: true };
      case 'vxlan-list':
        return {
          ok: true,
          vxlans: [...this.vxlans]
            .filter(([name]) => host.has(name))
            .map(([name, v]) => ({ name, ...v, ...(host.get(name) ? { alias: host.get(name) } : {}) })),
        };
      case 'iptables-add': {
        const key = `${nsKey(op.netns)} ${JSON.stringify(op.rule)}`;
        this.journaled(JSON.stringify(op.rule).slice(1, -1).split(',')[0]);
        this.rules.add(key);
        return { ok: true };
      }
      case 'iptables-delete':
        this.rules.delete(`${nsKey(op.netns)} ${JSON.stringify(op.rule)}`);
        return { ok: true };
      case 'iptables-add-all':
        for (const rule of op.rules) {
          this.journaled(JSON.stringify(rule).slice(1, -1).split(',')[0]);
          this.rules.add(`${nsKey(op.netns)} ${JSON.stringify(rule)}`);
        }
        return { ok: true };
      case 'iptables-delete-all':
        for (const rule of op.rules) this.rules.delete(`${nsKey(op.netns)} ${JSON.stringify(rule)}`);
        return { ok: true };
    }
  }
}
