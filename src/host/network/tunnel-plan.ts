import { createHash } from 'node:crypto';
import { EnvironmentError, UserInputError } from '../../errors.js';
import { assertInterfaceName, linkAlias } from './names.js';
import type { HostNetOperation } from './operation-schema.js';

/**
 * cavsim's own VXLAN port, always given. Not IANA's 4789 (RFC 7348): Docker's overlay networks use
 * it, and a run's DROP on its tunnel port would cut them off. Not Linux's default 8472 (flannel's).
 * Below Linux's ephemeral range (32768-60999), so no client socket takes it.
 */
export const VXLAN_PORT = 14789;
/** A car's VNI's low byte is its index; the top 32 values go to the control links of up to 32 remote hosts. */
export const MAX_TUNNELLED_CARS = 224;
export const MAX_REMOTE_HOSTS = 32;
/** A VXLAN device's MTU on a 1500-byte network: VXLAN adds 50 bytes (outer Ethernet 14, IP 20, UDP 8, VXLAN 8). */
export const VXLAN_MTU = 1450;

/**
 * The run's 16-bit VNI block: 16 bits of SHA-256(run id) other than those of the tag and device
 * group, never 0. VNI = block << 8 | slot, so one run's VNIs are distinct, and two runs share one only
 * if their blocks clash (1 in 65535), which `assertVnisFree` and the kernel (EEXIST) refuse.
 */
export function vniBlock(runId: string): number {
  return (parseInt(createHash('sha256').update(runId).digest('hex').slice(14, 18), 16) % 0xffff) + 1;
}

/** The VNI of the tunnel to car `index` of a run (its index among the run's vehicles). */
export function carVni(runId: string, index: number): number {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_TUNNELLED_CARS)
    throw new UserInputError(`vehicle ${index}: a run tunnels at most ${MAX_TUNNELLED_CARS} cars to other hosts`, [
      'keep the scenario at or under that many vehicles, or run it on fewer hosts',
    ]);
  return (vniBlock(runId) << 8) | index;
}

/** The VNI of the control link to remote host `hostIndex` (its index in the hosts file). */
export function controlVni(runId: string, hostIndex: number): number {
  if (!Number.isInteger(hostIndex) || hostIndex < 0 || hostIndex >= MAX_REMOTE_HOSTS)
    throw new UserInputError(`hosts[${hostIndex}]: a run spans at most ${MAX_REMOTE_HOSTS} remote hosts`, ['list fewer hosts']);
  return (vniBlock(runId) << 8) | (MAX_TUNNELLED_CARS + hostIndex);
}

/** A network namespace named by the container that owns it; its pid is looked up on its host when a step runs. */
export type ContainerNetns = { container: string };
type WithContainerNetns<T> = T extends { netns?: unknown } ? Omit<T, 'netns'> & { netns: ContainerNetns } : never;
/** A privileged-helper operation, or one that acts inside a container's namespace (resolved to its pid when run). */
export type PlannedOperation = HostNetOperation | WithContainerNetns<HostNetOperation>;

/**
 * One resource of a tunnel on one host: the operation that makes it and the one that undoes it
 * (idempotent, and only on the run's own link: the alias is checked). Journaled with its host
 * before it runs (kind `hostnet.tunnel`).
 */
export interface TunnelStep {
  host: string;
  /** A short label for the journal entry. */
  id: string;
  apply: PlannedOperation;
  inverse: PlannedOperation;
}

export interface TunnelEnd {
  /** The host's name in the hosts file (the run's host: its own name for it). */
  host: string;
  /** Its tunnel address: where the other end sends the encapsulated frames. */
  address: string;
}

export interface RemoteCarTunnel {
  runId: string;
  vni: number;
  runHost: TunnelEnd;
  remote: TunnelEnd;
  /** On the run's host: the VXLAN device's name and the car's tap bridge it joins (in place of the car's veth). */
  runSide: { link: string; bridge: string };
  /**
   * On the remote host: the VXLAN device's name while it is in the host's namespace, the car's container
   * it moves into, its name there (eth1), and the car's channel MAC, address and permanent neighbours.
   */
  remoteSide: {
    link: string;
    container: string;
    inside: string;
    mac: string;
    cidr: string;
    neighbours?: Array<{ ip: string; mac: string }>;
  };
  port?: number;
  /** The devices' MTU; default VXLAN_MTU (an underlay of 1500 bytes). */
  mtu?: number;
}

export interface TunnelPlan {
  vni: number;
  port: number;
  /** Steps on the run's host, then on the remote host, each in the order they run. */
  runSide: TunnelStep[];
  remoteSide: TunnelStep[];
}

/**
 * The tunnel that brings one remote car's V2V link to its tap on the run's host (docs/multi-host.md):
 * pure, touches nothing. Run's host: a VXLAN device to the remote host's tunnel address, a port of the
 * car's bridge. Remote host: a VXLAN device to the run's host, made in the host's namespace (where its
 * UDP socket stays) and moved into the car's container as eth1 with the car's MAC and address.
 */
export function planTunnel(t: RemoteCarTunnel): TunnelPlan {
  const port = t.port ?? VXLAN_PORT;
  for (const name of [t.runSide.link, t.runSide.bridge, t.remoteSide.link, t.remoteSide.inside]) assertInterfaceName(name);
  if (t.runHost.host === t.remote.host || t.runHost.address === t.remote.address)
    throw new UserInputError(`${t.remote.host}: a tunnel joins two hosts; ${t.runHost.host} is the run's own host`, [
      "give the remote host its own name and tunnel address in the hosts file, or leave the car on the run's host",
    ]);
  const alias = linkAlias(t.runId);
  const vxlan = { op: 'create-vxlan', alias, vni: t.vni, port, mtu: t.mtu ?? VXLAN_MTU } as const;
  const r = t.remoteSide;
  const netns = { container: r.container };
  return {
    vni: t.vni,
    port,
    runSide: [
      {
        host: t.runHost.host,
        id: `vxlan ${t.runSide.link} vni ${t.vni} -> ${t.remote.host}`,
        apply: { ...vxlan, name: t.runSide.link, local: t.runHost.address, remote: t.remote.address, bridge: t.runSide.bridge },
        inverse: { op: 'delete-link', name: t.runSide.link, alias },
      },
    ],
    remoteSide: [
      {
        host: t.remote.host,
        id: `vxlan ${r.link} vni ${t.vni} -> ${t.runHost.host}`,
        apply: { ...vxlan, name: r.link, local: t.remote.address, remote: t.runHost.address },
        // Once moved into the car it is no longer here; this undoes a run cut short before the move.
        inverse: { op: 'delete-link', name: r.link, alias },
      },
      {
        host: t.remote.host,
        id: `${r.link} -> ${r.container} as ${r.inside}`,
        apply: { op: 'move-into-netns', name: r.link, netns, newName: r.inside, mac: r.mac, cidr: r.cidr, neighbours: r.neighbours ?? [] },
        inverse: { op: 'delete-link', name: r.inside, netns, alias },
      },
    ],
  };
}

/**
 * Refuses a planned VNI that a VXLAN device already on the host uses on the same UDP port (another
 * run's, or one of the host's own): the kernel would refuse it (EEXIST) or, worse, mix two links.
 */
export function assertVnisFree(
  host: string,
  planned: ReadonlyArray<{ vni: number; port: number }>,
  existing: ReadonlyArray<{ name: string; vni: number; port: number; alias?: string }>,
): void {
  const clashes = planned.flatMap((p) => existing.filter((e) => e.vni === p.vni && e.port === p.port));
  if (!clashes.length) return;
  const owned = clashes.find((c) => c.alias?.startsWith('cavsim:'));
  throw new EnvironmentError(
    `${host}: VNI ${clashes.map((c) => `${c.vni} is already used by ${c.name}${c.alias ? ` (${c.alias})` : ''}`).join(', ')} on UDP port ${clashes[0].port}`,
    owned
      ? `it belongs to another cavsim run (${owned.alias}); tear that run down first (cavsim teardown), or start this one under another run id`
      : "that device is not cavsim's: delete it yourself if it is unused, or start this run under another run id (its VNIs come from the id)",
  );
}
