import { UserInputError } from '../../errors.js';
import {
  controlBridgeName,
  controlVethNames,
  IFNAME_PATTERN,
  linkAlias,
  linkGroup,
  RUN_ID_PATTERN,
  ruleComment,
  runTag,
  VEHICLE_NAME_PATTERN,
  type VehicleInterfaceNames,
  vehicleInterfaceNames,
} from './names.js';
import type { IptablesRule, NetnsTarget } from './operation-schema.js';

/** Where a vehicle's network namespace is: a container's init pid, or a named `ip netns`. */
export type { NetnsTarget };

export const V2V_INTERFACE = 'eth1';
export const CONTROL_INTERFACE = 'eth0';
/** Each run's V2V subnet is 10.210.X.0/24 with X from the run id; override with `v2vSubnet`. */
export const V2V_SUBNET_PREFIX = '10.210';

/**
 * A vehicle whose V2V interface lives on a device cavsim does not run: its interface on the host
 * (`interface`) joins the vehicle's bridge, and the device itself uses the planned address and `mac`.
 */
export interface DeviceAttachment {
  interface: string;
  mac: string;
}

/**
 * Where a vehicle's eth1 is: a namespace on this host, a device's interface, or (`remote`) a car
 * container on another host, whose tunnel joins its bridge (src/host/network/tunnel-plan.ts): its
 * bridge and tap are made here, its veth and namespace rules are not (they are the remote host's).
 */
export type HostNetVehicle =
  | { name: string; netns: NetnsTarget }
  | { name: string; device: DeviceAttachment }
  | { name: string; remote: true };

export interface HostNetInput {
  runId: string;
  vehicles: HostNetVehicle[];
  /**
   * The control network: vehicles may talk to the simulator there, not to each other. With
   * `hostIp` and `members`, cavsim plumbs it itself (a bridge with the host's address, a veth into
   * each member's namespace as eth0) instead of Docker.
   */
  control?: { subnet: string; simulatorIp: string; hostIp?: string; members?: ControlMember[] };
  /** Override the V2V /24, e.g. "10.210.7.0/24". */
  v2vSubnet?: string;
  /**
   * Devices cavsim does not run that reach this host on its control link: the host accepts from
   * each only TCP to `port` (where cavsim relays it to the simulator) and drops the rest.
   */
  guardedDevices?: Array<{ from: string; port: number }>;
  /** uid that will run the ns-3 program (TapBridge opens the taps as that user). */
  channelUid?: number;
}

/** A namespace cavsim puts on the control network: the simulator's (no `vehicle`), or the one a vehicle's eth1 goes into. */
export interface ControlMember {
  vehicle?: string;
  ip: string;
  netns: NetnsTarget;
}

export interface ControlNetPlan {
  bridge: string;
  /** The host's own address on the bridge: the orchestrator and device relays reach the simulator from it. */
  hostCidr: string;
  members: Array<ControlMember & { vethHost: string; vethPeer: string; cidr: string }>;
}

export interface VehicleNetPlan {
  name: string;
  index: number;
  /** Where eth1 goes: a namespace cavsim plumbs a veth into, or a device's interface joined as it is. */
  netns?: NetnsTarget;
  device?: DeviceAttachment;
  /** On another host: its `rules` are applied in its namespace there, its eth1 is a tunnel to `links.bridge`. */
  remote?: true;
  links: VehicleInterfaceNames;
  mac: string;
  ip: string; // eth1 address
  cidr: string; // eth1 address with prefix length
  /** Permanent neighbour entries for every other vehicle: no ARP traffic competes for the bus. */
  neighbours: Array<{ ip: string; mac: string }>;
  /** Anti-cheat rules inside the vehicle namespace (filter table). */
  rules: IptablesRule[];
}

export interface HostNetPlan {
  runId: string;
  tag: string;
  alias: string;
  /** The device group all of the run's host links join, so teardown deletes them in one batch. */
  linkGroup: number;
  comment: string;
  subnet: string;
  channelUid: number;
  vehicles: VehicleNetPlan[];
  /** The control network cavsim plumbs, when the input asked for it. */
  controlNet?: ControlNetPlan;
  /** Host rules letting bridged frames of each br-<tag>-<i> (and br-<tag>-c) through Docker's FORWARD DROP. */
  hostRules: IptablesRule[];
  /** Host INPUT rules: an external device reaches only its relay's port on this host. */
  hostInputRules: IptablesRule[];
  /** The host taps the channel program bridges, in vehicle order (its argv: src/channel/ns3/realtime-argv.ts). */
  channel: { taps: string[] };
}

const UNICAST_MAC = /^[0-9a-f][02468ace](:[0-9a-f]{2}){5}$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Decides every name, address, MAC, rule and ns-3 argument; touches nothing. */
export function planHostNetwork(input: HostNetInput): HostNetPlan {
  const problems: string[] = [];
  if (!RUN_ID_PATTERN.test(input.runId)) problems.push(`runId: "${input.runId}" must match ${RUN_ID_PATTERN}`);
  if (input.vehicles.length < 1) problems.push('vehicles: at least one vehicle is needed');
  if (input.vehicles.length > 250) problems.push('vehicles: at most 250 vehicles fit in one /24');
  const seen = new Set<string>();
  input.vehicles.forEach((v, i) => {
    if (!VEHICLE_NAME_PATTERN.test(v.name)) problems.push(`vehicles.${i}.name: "${v.name}" must match ${VEHICLE_NAME_PATTERN}`);
    if ('device' in v) {
      if (!IFNAME_PATTERN.test(v.device.interface))
        problems.push(`vehicles.${i}.device.interface: "${v.device.interface}" is not an interface name (1-15 characters, no / or spaces)`);
      if (!UNICAST_MAC.test(v.device.mac))
        problems.push(
          `vehicles.${i}.device.mac: "${v.device.mac}" must be the device's unicast MAC in lower case, like 02:00:00:00:00:01 (see \`ip link show\` on the device)`,
        );
    }
    if (seen.has(v.name)) problems.push(`vehicles.${i}.name: "${v.name}" is used twice`);
    seen.add(v.name);
  });
  const subnet = input.v2vSubnet ?? defaultSubnet(input.runId);
  const base = parseSlash24(subnet);
  if (!base) problems.push(`v2vSubnet: "${subnet}" must be an IPv4 /24 like 10.210.7.0/24`);
  if (input.control) {
    const c = parseCidr(input.control.subnet);
    if (!c) problems.push(`control.subnet: "${input.control.subnet}" is not an IPv4 CIDR`);
    if (!IPV4.test(input.control.simulatorIp)) problems.push(`control.simulatorIp: "${input.control.simulatorIp}" is not an IPv4 address`);
    if (c && base && overlaps(c, { addr: ipToInt(`${base}.0`), len: 24 })) {
      problems.push(`control.subnet ${input.control.subnet} overlaps the V2V subnet ${subnet}`);
    }
    const inControl = (ip: string) => c !== undefined && IPV4.test(ip) && overlaps(c, { addr: ipToInt(ip), len: 32 });
    if (input.control.hostIp !== undefined && !inControl(input.control.hostIp))
      problems.push(`control.hostIp: "${input.control.hostIp}" is not an address in ${input.control.subnet}`);
    (input.control.members ?? []).forEach((m, i) => {
      if (!inControl(m.ip)) problems.push(`control.members.${i}.ip: "${m.ip}" is not an address in ${input.control!.subnet}`);
      if (m.vehicle !== undefined && !input.vehicles.some((v) => v.name === m.vehicle))
        problems.push(`control.members.${i}.vehicle: "${m.vehicle}" is not one of the vehicles`);
    });
  }
  (input.guardedDevices ?? []).forEach((d, i) => {
    if (!IPV4.test(d.from) || d.from.startsWith('127.'))
      problems.push(`guardedDevices.${i}.from: "${d.from}" must be the device's IPv4 address, not loopback`);
  });
  if (problems.length) throw new UserInputError('invalid host network input', problems);

  const tag = runTag(input.runId);
  const comment = ruleComment(input.runId);
  const vehicles = input.vehicles.map(
    (v, index): Omit<VehicleNetPlan, 'neighbours' | 'rules'> => ({
      name: v.name,
      index,
      ...('device' in v ? { device: v.device } : 'remote' in v ? { remote: true as const } : { netns: v.netns }),
      links: vehicleInterfaceNames(tag, index),
      mac: 'device' in v ? v.device.mac : vehicleMac(tag, index),
      ip: `${base}.${index + 1}`,
      cidr: `${base}.${index + 1}/24`,
    }),
  );
  const controlNet =
    input.control?.hostIp !== undefined
      ? planControlNet(tag, { ...input.control, hostIp: input.control.hostIp }, input.vehicles)
      : undefined;
  return {
    runId: input.runId,
    tag,
    alias: linkAlias(input.runId),
    linkGroup: linkGroup(input.runId),
    comment,
    subnet,
    channelUid: input.channelUid ?? 0,
    vehicles: vehicles.map((v) => ({
      ...v,
      neighbours: vehicles.filter((o) => o.index !== v.index).map((o) => ({ ip: o.ip, mac: o.mac })),
      // A device is not ours to configure: only the channel stands between it and the cars.
      rules: input.control && !v.device ? antiCheatRules(input.control, subnet, comment) : [],
    })),
    ...(controlNet ? { controlNet } : {}),
    hostRules: [...vehicles.map((v) => v.links.bridge), ...(controlNet ? [controlNet.bridge] : [])].map((bridge) => ({
      chain: 'DOCKER-USER',
      in: bridge,
      out: bridge,
      jump: 'ACCEPT',
      comment,
    })),
    hostInputRules: (input.guardedDevices ?? []).flatMap((d): IptablesRule[] => [
      { chain: 'INPUT', source: `${d.from}/32`, tcpPort: d.port, jump: 'ACCEPT', comment },
      { chain: 'INPUT', source: `${d.from}/32`, jump: 'DROP', comment },
    ]),
    channel: { taps: vehicles.map((v) => v.links.tap) },
  };
}

function planControlNet(
  tag: string,
  control: { subnet: string; hostIp: string; members?: ControlMember[] },
  vehicles: HostNetVehicle[],
): ControlNetPlan {
  const prefix = control.subnet.split('/')[1];
  const key = (m: ControlMember) => (m.vehicle === undefined ? 's' : String(vehicles.findIndex((v) => v.name === m.vehicle)));
  return {
    bridge: controlBridgeName(tag),
    hostCidr: `${control.hostIp}/${prefix}`,
    members: (control.members ?? []).map((m) => ({ ...m, ...controlVethNames(tag, key(m)), cidr: `${m.ip}/${prefix}` })),
  };
}

/**
 * eth0 is the control link: it carries traffic with the simulator and nothing else, in either
 * direction, and never a packet for the vehicle's channel address, so vehicles cannot bypass the
 * channel over the Docker network. (Forged source addresses are ruled out by dropping NET_RAW from
 * the containers; these rules hold for everything a vehicle can send without it.)
 */
function antiCheatRules(control: { subnet: string; simulatorIp: string }, v2vSubnet: string, comment: string): IptablesRule[] {
  const sim = `${control.simulatorIp}/32`;
  return [
    { chain: 'INPUT', in: CONTROL_INTERFACE, destination: v2vSubnet, jump: 'DROP', comment },
    { chain: 'INPUT', in: CONTROL_INTERFACE, source: sim, jump: 'ACCEPT', comment },
    { chain: 'INPUT', in: CONTROL_INTERFACE, jump: 'DROP', comment },
    { chain: 'OUTPUT', out: CONTROL_INTERFACE, destination: sim, jump: 'ACCEPT', comment },
    { chain: 'OUTPUT', out: CONTROL_INTERFACE, jump: 'DROP', comment },
  ];
}

/** Locally administered unicast MAC: 02:ca:<tag 4 hex>:<index 16 bit>. */
function vehicleMac(tag: string, index: number): string {
  const hex = (tag.slice(0, 4) + index.toString(16).padStart(4, '0')).match(/../g)!;
  return ['02', 'ca', ...hex].join(':');
}

function defaultSubnet(runId: string): string {
  return `${V2V_SUBNET_PREFIX}.${parseInt(runTag(runId).slice(0, 2), 16)}.0/24`;
}

function parseSlash24(cidr: string): string | undefined {
  const m = /^(\d+\.\d+\.\d+)\.0\/24$/.exec(cidr);
  return m && IPV4.test(`${m[1]}.0`) ? m[1] : undefined;
}

function parseCidr(cidr: string): { addr: number; len: number } | undefined {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(cidr);
  if (!m || !IPV4.test(m[1]) || Number(m[2]) > 32) return undefined;
  return { addr: ipToInt(m[1]), len: Number(m[2]) };
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function overlaps(a: { addr: number; len: number }, b: { addr: number; len: number }): boolean {
  const len = Math.min(a.len, b.len);
  const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
  return (a.addr & mask) >>> 0 === (b.addr & mask) >>> 0;
}
