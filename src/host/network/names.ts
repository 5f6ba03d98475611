import { createHash } from 'node:crypto';
import { UserInputError } from '../../errors.js';

/** Linux limits interface names to 15 bytes (IFNAMSIZ - 1). */
export const MAX_IFNAME = 15;
/** Interface names cavsim creates or accepts: letters, digits, '-', '_', '.', at most 15. */
export const IFNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/;
/** Network namespace names (test stand-ins, `ip netns add`). */
export const NETNS_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
/** Run ids and vehicle names end up in comments and aliases; keep them shell- and rule-safe. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const VEHICLE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/**
 * Six hex digits of the run id's SHA-256: short enough for 15-character interface names, distinct
 * enough that two runs on one host do not collide (and if they ever do, creation refuses).
 */
export function runTag(runId: string): string {
  return createHash('sha256').update(runId).digest('hex').slice(0, 6);
}

/**
 * The device group (`ip link set ... group N`) of a run's host links, from 8 more hex digits of the
 * run's hash, never the default group 0: `ip link delete group N` removes them all in one kernel
 * batch (about 40 ms for 64 veths, where one delete each waits ~15 ms on the kernel).
 */
export function linkGroup(runId: string): number {
  return (parseInt(createHash('sha256').update(runId).digest('hex').slice(6, 14), 16) % 0x7ffffffe) + 1;
}

export interface VehicleInterfaceNames {
  bridge: string; // br-<tag>-<i>
  tap: string; // tap-<tag>-<i>
  vethHost: string; // cv-<tag>-<i>h, stays on the bridge
  vethPeer: string; // cv-<tag>-<i>v: the peer's name on the host where a stand-in moves it (a run's peer is born inside as eth1)
}

export function vehicleInterfaceNames(tag: string, index: number): VehicleInterfaceNames {
  const names = {
    bridge: `br-${tag}-${index}`,
    tap: `tap-${tag}-${index}`,
    vethHost: `cv-${tag}-${index}h`,
    vethPeer: `cv-${tag}-${index}v`,
  };
  for (const n of Object.values(names)) assertInterfaceName(n);
  return names;
}

/** The run's control network: its bridge, and a veth pair per namespace on it (`key`: `s` for the simulator, else the vehicle's index). */
export const controlBridgeName = (tag: string) => `br-${tag}-c`;
export function controlVethNames(tag: string, key: string): { vethHost: string; vethPeer: string } {
  const names = { vethHost: `cv-${tag}-c${key}h`, vethPeer: `cv-${tag}-c${key}v` };
  for (const n of Object.values(names)) assertInterfaceName(n);
  return names;
}

export function assertInterfaceName(name: string): void {
  if (!IFNAME_PATTERN.test(name)) {
    throw new UserInputError(`invalid interface name "${name}"`, [
      `interface names must match ${IFNAME_PATTERN} (at most ${MAX_IFNAME} characters)`,
    ]);
  }
}

/** The comment every iptables rule of a run carries; `cavsim:` lets a sweep find them by run. */
export const ruleComment = (runId: string) => `cavsim:${runId}`;
/** The ifalias set on every link of a run, so `ip -d link` shows who owns it. */
export const linkAlias = (runId: string) => `cavsim:${runId}`;
