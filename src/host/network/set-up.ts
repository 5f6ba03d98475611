import type { Journal, TeardownReport } from '../journal/journal.js';
import { JournaledHostNet } from './journaled-ops.js';
import type { HostNetOps } from './hostnet-port.js';
import type { HostNetPlan } from './plan.js';
import { CONTROL_INTERFACE, V2V_INTERFACE } from './plan.js';
import { hostNetUndoers } from './undoers.js';
import { HOSTNET_KINDS } from '../journal/kinds.js';
import { inParallel } from '../../util/in-parallel.js';

const PLUMBED_AT_ONCE = 4;

export interface StartedHostNetwork {
  readonly plan: HostNetPlan;
  /** The host chain that holds the bridge ACCEPT rules: DOCKER-USER when Docker is there, else FORWARD. */
  readonly hostChain: 'DOCKER-USER' | 'FORWARD';
  /** Removes everything host networking created, newest first. Harmless to call twice. */
  teardown(): Promise<TeardownReport>;
  [Symbol.asyncDispose](): Promise<void>;
}

const OUR_KINDS = new Set<string>(Object.values(HOSTNET_KINDS));

/** Undo only host-network entries; entries other modules wrote stay outstanding for their owner. */
export async function teardownHostNet(journal: Journal, ops: HostNetOps): Promise<TeardownReport> {
  const report = await journal.teardown(hostNetUndoers(ops));
  return { ...report, failed: report.failed.filter((f) => OUR_KINDS.has(f.entry.kind)) };
}

/** Every host link the plan creates. */
function plannedHostLinks(plan: HostNetPlan): string[] {
  return [
    ...plan.vehicles.flatMap((v) => (v.device ? [v.links.bridge, v.links.tap] : Object.values(v.links))),
    ...(plan.controlNet ? [plan.controlNet.bridge, ...plan.controlNet.members.flatMap((m) => [m.vethHost, m.vethPeer])] : []),
  ];
}

/** Refuses a plan whose host link names are taken, before anything of the run exists (one look at the host's links). */
export async function assertPlannedLinksFree(plan: HostNetPlan, ops: HostNetOps, journal: Journal): Promise<void> {
  await new JournaledHostNet(journal, ops, plan.alias).assertHostLinksFree(plannedHostLinks(plan));
}

/**
 * Realises the plan: per vehicle a bridge, a tap on it, a veth pair whose far end becomes eth1 in
 * the vehicle; then the host ACCEPT rules and each vehicle's anti-cheat rules. Every name is checked
 * before the first resource exists; a failure half-way unwinds what was built and rethrows.
 */
export async function setUpHostNetwork(plan: HostNetPlan, deps: { journal: Journal; ops: HostNetOps }): Promise<StartedHostNetwork> {
  const { journal, ops } = deps;
  const net = new JournaledHostNet(journal, ops, plan.alias);

  const control = plan.controlNet;
  await net.assertHostLinksFree(plannedHostLinks(plan));
  for (const v of plan.vehicles) {
    if (v.device) await net.assertDeviceInterfaceUsable(v.device.interface, `vehicles.${v.name}: device interface`);
    else await net.assertLinkFree(V2V_INTERFACE, v.netns);
  }
  for (const m of control?.members ?? []) await net.assertLinkFree(CONTROL_INTERFACE, m.netns);
  const hasDockerUser = (await ops.run({ op: 'chain-exists', chain: 'DOCKER-USER' })).exists === true;
  const hostChain = hasDockerUser ? 'DOCKER-USER' : 'FORWARD';

  try {
    if (control) {
      await net.createBridge(control.bridge, control.hostCidr);
      await inParallel(control.members, PLUMBED_AT_ONCE, (m) =>
        net.createVeth({ hostEnd: m.vethHost, peer: m.vethPeer, bridge: control.bridge, netns: m.netns, insideName: CONTROL_INTERFACE, cidr: m.cidr }),
      );
    }
    // Each vehicle's links are its own; a few at a time, as the commands mostly wait on the kernel.
    await inParallel(plan.vehicles, PLUMBED_AT_ONCE, async (v) => {
      await net.createBridge(v.links.bridge);
      await net.createTap(v.links.tap, v.links.bridge, plan.channelUid);
      if (v.device) return net.joinDevice(v.device.interface, v.links.bridge);
      await net.createVeth({
        hostEnd: v.links.vethHost,
        peer: v.links.vethPeer,
        bridge: v.links.bridge,
        netns: v.netns!,
        insideName: V2V_INTERFACE,
        mac: v.mac,
        cidr: v.cidr,
        neighbours: v.neighbours,
      });
    });
    await net.addRules(plan.hostRules.map((rule) => ({ ...rule, chain: hostChain })), 'insert');
    // Each -I goes to the top: inserted last-first, they end up in the planned order, ahead of the host's own.
    await net.addRules([...plan.hostInputRules].reverse(), 'insert');
    await inParallel(plan.vehicles, PLUMBED_AT_ONCE, (v) => net.addRules(v.rules, 'append', v.netns));
  } catch (err) {
    const report = await teardownHostNet(journal, ops);
    if (report.failed.length && err instanceof Error) {
      err.message += `\n(also, unwinding failed for: ${report.failed.map((f) => `${f.entry.kind} ${f.entry.id}: ${f.error}`).join('; ')})`;
    }
    throw err;
  }

  let done: Promise<TeardownReport> | undefined;
  const teardown = () => (done ??= teardownHostNet(journal, ops));
  return {
    plan,
    hostChain,
    teardown,
    async [Symbol.asyncDispose]() {
      await teardown();
    },
  };
}
