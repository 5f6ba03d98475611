import { z } from 'zod';
import { IFNAME_PATTERN, NETNS_NAME_PATTERN } from './names.js';

/**
 * The privileged helper's whole vocabulary. Every field is checked here, so nothing from a scenario
 * reaches `ip`, `iptables` or `nsenter` unless it is a well-formed name, address or number.
 */
const ifname = z.string().regex(IFNAME_PATTERN, 'not a valid interface name (<= 15 chars)');
const netnsName = z.string().regex(NETNS_NAME_PATTERN, 'not a valid netns name');
const mac = z.string().regex(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/, 'not a lower-case MAC address');
const alias = z.string().regex(/^cavsim:[A-Za-z0-9_.-]{1,64}$/, 'must be cavsim:<runId>');

export const netnsTargetSchema = z.union([
  z.object({ pid: z.number().int().positive() }).strict(),
  z.object({ name: netnsName }).strict(),
]);
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
    jump: z.enum(['ACCEPT', 'DROP']),
    comment: alias,
  })
  .strict();
export type IptablesRule = z.infer<typeof iptablesRuleSchema>;

export const hostNetOperationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('link-info'), name: ifname, netns: netnsTargetSchema.optional() }).strict(),
  z.object({ op: z.literal('link-list') }).strict(),
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
      neighbours: z.array(z.object({ ip: z.ipv4(), mac }).strict()).default([]),
    })
    .strict(),
  z.object({ op: z.literal('delete-link'), name: ifname }).strict(),
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
  z.object({ op: z.literal('iptables-delete-all'), netns: netnsTargetSchema.optional(), rules: z.array(iptablesRuleSchema).min(1).max(256) }).strict(),
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
  /** link-list: every link on the host, with its alias if it has one. */
  links?: Array<{ name: string; alias?: string }>;
}
