import { z } from '../../util/zod.js';
import { IFNAME_PATTERN, NETNS_NAME_PATTERN } from './names.js';

/**
 * The privileged helper's whole vocabulary. Every field is checked here, so nothing from a scenario
 * reaches `ip`, `iptables` or `nsenter` unless it is a well-formed name, address or number.
 */
const ifname = z.string().regex(IFNAME_PATTERN, 'not a valid interface name (<= 15 chars)');
const netnsName = z.string().regex(NETNS_NAME_PATTERN, 'not a valid netns name');
const mac = z.string().regex(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/, 'not a lower-case MAC address');
const alias = z.string().regex(/^cavsim:[A-Za-z0-9_.-]{1,64}$/, 'must be cavsim:<runId>');

export const netnsTargetSchema = z.union([z.object({ pid: z.number().int().positive() }).strict(), z.object({ name: netnsName }).strict()]);
export type NetnsTarget = z.infer<typeof netnsTargetSchema>;

export const iptablesRuleSchema = z
  .object({
    chain: z.enum(['INPUT', 'OUTPUT', 'FORWARD', 'DOCKER-USER']),
    in: ifname.optional(),
    out: ifname.optional(),
    source: z.cidrv4().optional(),
    destination: z.cidrv4().optional(),
    /** Only TCP to this destination port. */
    tcpPort: z.number().int().min(1).max(65535).optional(),
    /** Only UDP to this destination port (a tunnel's port: only its peer may feed it). */
    udpPort: z.number().int().min(1).max(65535).optional(),
    jump: z.enum(['ACCEPT', 'DROP']),
    comment: alias,
  })
  .strict();
export type IptablesRule = z.infer<typeof iptablesRuleSchema>;

const neighbours = z.array(z.object({ ip: z.ipv4(), mac }).strict());

/** A run's device group for its host links (never 0, the default group every other link is in). */
const linkGroupSchema = z.number().int().min(1).max(0x7fffffff);

/** At most this many links in one batched create or delete (250 vehicles with a bridge, a tap and two veths each). */
export const MAX_LINKS_PER_BATCH = 1024;

/**
 * One host link of a batched create: a bridge (with the host's address, for the control network), a
 * tap on a bridge, or a veth pair whose host end joins a bridge and whose peer is born in `netns` as `peer`.
 */
export const linkSpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bridge'), name: ifname, cidr: z.cidrv4().optional() }).strict(),
  z.object({ kind: z.literal('tap'), name: ifname, bridge: ifname, uid: z.number().int().min(0) }).strict(),
  z.object({ kind: z.literal('veth'), name: ifname, bridge: ifname.optional(), peer: ifname, netns: netnsTargetSchema }).strict(),
]);
export type LinkSpec = z.infer<typeof linkSpecSchema>;

/** A link already inside a namespace, set up there: its MAC, address and permanent neighbours. */
export const insideLinkSchema = z
  .object({
    name: ifname,
    mac: mac.optional(),
    cidr: z.cidrv4().optional(),
    neighbours: neighbours.default([]),
    /** A remote car's eth0 takes its control tunnel's MTU, so TCP's segments fit the VXLAN. */
    mtu: z.number().int().min(576).max(9000).optional(),
  })
  .strict();
export type InsideLink = z.input<typeof insideLinkSchema>;

export const hostNetOperationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('link-info'), name: ifname, netns: netnsTargetSchema.optional() }).strict(),
  /** Every link of the host, or of a namespace. */
  z.object({ op: z.literal('link-list'), netns: netnsTargetSchema.optional() }).strict(),
  z.object({ op: z.literal('chain-exists'), chain: z.enum(['DOCKER-USER']) }).strict(),
  z.object({ op: z.literal('netns-info'), name: netnsName }).strict(),
  z.object({ op: z.literal('create-netns'), name: netnsName }).strict(),
  z.object({ op: z.literal('delete-netns'), name: netnsName }).strict(),
  /** `cidr`: the host's own address on it (the control network's bridge). */
  z.object({ op: z.literal('create-bridge'), name: ifname, alias, cidr: z.cidrv4().optional() }).strict(),
  z.object({ op: z.literal('create-tap'), name: ifname, alias, uid: z.number().int().min(0) }).strict(),
  z.object({ op: z.literal('create-veth'), name: ifname, peer: ifname, alias }).strict(),
  z.object({ op: z.literal('link-up'), name: ifname }).strict(),
  z.object({ op: z.literal('enslave'), name: ifname, bridge: ifname }).strict(),
  /** A device's host interface back out of a run's bridge (only if it is still there), down again if it was. */
  z.object({ op: z.literal('leave-bridge'), name: ifname, bridge: ifname, down: z.boolean() }).strict(),
  z
    .object({
      op: z.literal('move-into-netns'),
      name: ifname,
      netns: netnsTargetSchema,
      newName: ifname,
      mac: mac.optional(),
      cidr: z.cidrv4().optional(),
      neighbours: neighbours.default([]),
      mtu: z.number().int().min(576).max(9000).optional(),
    })
    .strict(),
  /**
   * Deleted if it is there; with `netns`, inside that namespace (one that is gone took its links with it);
   * with `alias`, only a link that carries it (one of that run's: someone else's link of that name stays).
   */
  z.object({ op: z.literal('delete-link'), name: ifname, netns: netnsTargetSchema.optional(), alias: alias.optional() }).strict(),
  /**
   * A VXLAN device (a remote car's V2V link, docs/multi-host.md): one fixed peer, learning off, IPv6
   * off; with `bridge` it joins it and goes up, else it stays down (to be moved into a car's namespace).
   */
  z
    .object({
      op: z.literal('create-vxlan'),
      name: ifname,
      alias,
      vni: z.number().int().min(1).max(0xffffff),
      local: z.ipv4(),
      remote: z.ipv4(),
      port: z.number().int().min(1).max(65535),
      /** The device's MTU: the underlay's less VXLAN's 50 bytes (1450 on a 1500 B network). */
      mtu: z.number().int().min(576).max(9000).optional(),
      bridge: ifname.optional(),
    })
    .strict(),
  /** The VXLAN devices of the host's namespace, with their VNI and UDP port. */
  z.object({ op: z.literal('vxlan-list') }).strict(),
  /** Many host links in three processes, whatever their number: created, then IPv6 off, then up. */
  z
    .object({
      op: z.literal('create-links'),
      alias,
      group: linkGroupSchema,
      links: z.array(linkSpecSchema).min(1).max(MAX_LINKS_PER_BATCH),
    })
    .strict(),
  /** Links a `create-links` veth put into `netns`: IPv6 off, up, then addressed. */
  z.object({ op: z.literal('configure-links'), netns: netnsTargetSchema, links: z.array(insideLinkSchema).min(1).max(8) }).strict(),
  /**
   * Host links deleted at once: with `group`, the whole device group in one kernel batch when every
   * link in it is one of `names`; the rest one by one. Links already gone are fine, one that stays is an error.
   */
  z
    .object({ op: z.literal('delete-links'), names: z.array(ifname).min(1).max(MAX_LINKS_PER_BATCH), group: linkGroupSchema.optional() })
    .strict(),
  z
    .object({
      op: z.literal('iptables-add'),
      netns: netnsTargetSchema.optional(),
      rule: iptablesRuleSchema,
      position: z.enum(['insert', 'append']),
    })
    .strict(),
  z.object({ op: z.literal('iptables-delete'), netns: netnsTargetSchema.optional(), rule: iptablesRuleSchema }).strict(),
  z
    .object({
      op: z.literal('iptables-add-all'),
      netns: netnsTargetSchema.optional(),
      rules: z.array(iptablesRuleSchema).min(1).max(256),
      position: z.enum(['insert', 'append']),
    })
    .strict(),
  z
    .object({
      op: z.literal('iptables-delete-all'),
      netns: netnsTargetSchema.optional(),
      rules: z.array(iptablesRuleSchema).min(1).max(256),
    })
    .strict(),
]);
export type HostNetOperation = z.input<typeof hostNetOperationSchema>;
export type ValidHostNetOperation = z.output<typeof hostNetOperationSchema>;

export interface HostNetResult {
  ok: true;
  exists?: boolean;
  alias?: string;
  /** link-info: the bridge the link is enslaved to, and whether it is administratively up. */
  master?: string;
  up?: boolean;
  /** link-list: every link on the host (or in the namespace), with its alias if it has one. */
  links?: Array<{ name: string; alias?: string }>;
  /** vxlan-list: the host's VXLAN devices. */
  vxlans?: Array<{ name: string; vni: number; port: number; alias?: string }>;
}
