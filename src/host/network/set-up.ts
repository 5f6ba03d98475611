import { inParallel } from '../../util/in-parallel.js';
import type { Journal, TeardownReport } from '../journal/journal.js';
import { HOSTNET_KINDS } from '../journal/kinds.js';
import type { HostNetOps } from './hostnet-port.js';
import { JournaledHostNet } from './journaled-ops.js';
import type { InsideLink, LinkSpec, NetnsTarget } from './operation-schema.js';
import type { HostNetPlan } from './plan.js';
import { CONTROL_INTERFACE, V2V_INTERFACE } from './plan.js';
import { hostNetUndoers } from './undoers.js';

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
  return hostLinks(plan).map((l) => l.name);
}

/** The host's side of the plan: the control bridge and veths, then each vehicle's bridge, tap and veth (a device's interface joins later). */
function hostLinks(plan: HostNetPlan): LinkSpec[] {
  const control = plan.controlNet;
  return [
    ...(control
      ? [
          { kind: 'bridge' as const, name: control.bridge, cidr: control.hostCidr },
          ...control.members.map((m) => ({
            kind: 'veth' as const,
            name: m.vethHost,
            bridge: control.bridge,
            peer: CONTROL_INTERFACE,
            netns: m.netns,
          })),
        ]
      : []),
    ...plan.vehicles.flatMap((v): LinkSpec[] => [
      { kind: 'bridge', name: v.links.bridge },
      { kind: 'tap', name: v.links.tap, bridge: v.links.bridge, uid: plan.channelUid },
      ...(v.netns ? [{ kind: 'veth' as const, name: v.links.vethHost, bridge: v.links.bridge, peer: V2V_INTERFACE, netns: v.netns }] : []),
    ]),
  ];
}

/** Per namespace, the links the host's veths put there and how each is set up: eth0 (control) and eth1 (V2V). */
function insideLinks(plan: HostNetPlan): Array<{ netns: NetnsTarget; links: InsideLink[] }> {
  const byNetns = new Map<string, { netns: NetnsTarget; links: InsideLink[] }>();
  const add = (netns: NetnsTarget, link: InsideLink) => {
    const key = JSON.stringify(netns);
    if (!byNetns.has(key)) byNetns.set(key, { netns, links: [] });
    byNetns.get(key)!.links.push(link);
  };
  for (const m of plan.controlNet?.members ?? []) add(m.netns, { name: CONTROL_INTERFACE, cidr: m.cidr });
  for (const v of plan.vehicles) if (v.netns) add(v.netns, { name: V2V_INTERFACE, mac: v.mac, cidr: v.cidr, neighbours: v.neighbours });
  return [...byNetns.values()];
}

/** Refuses a plan whose host link names are taken, before anything of the run exists (one look at the host's links). */
export async function assertPlannedLinksFree(plan: HostNetPlan, ops: HostNetOps, journal: Journal): Promise<void> {
  await new JournaledHostNet(journal, ops, plan.alias).assertHostLinksFree(plannedHostLinks(plan));
}

/**
 * Realises the plan: per vehicle a bridge, a tap on it, a veth pair whose far end is born in the
 * vehicle as eth1; the control bridge and a veth into each member as eth0; then the host ACCEPT
 * rules and each vehicle's anti-cheat rules. Every name is checked before the first resource
 * exists; a failure half-way unwinds what was built and rethrows.
 *
 * The host links are one batch and one journal entry, each namespace is set up by two processes and
 * ruled by one: at 32 vehicles that is about 130 short processes, where one per step was over 700.
 */
export async function setUpHostNetwork(plan: HostNetPlan, deps: { journal: Journal; ops: HostNetOps }): Promise<StartedHostNetwork> {
  const { journal, ops } = deps;
  const net = new JournaledHostNet(journal, ops, plan.alias);

  await net.assertHostLinksFree(plannedHostLinks(plan));
  for (const v of plan.vehicles)
    if (v.device) await net.assertDeviceInterfaceUsable(v.device.interface, `vehicles.${v.name}: device interface`);
  const insides = insideLinks(plan);
  await inParallel(insides, PLUMBED_AT_ONCE, (i) =>
    net.assertLinksFreeIn(
      i.netns,
      i.links.map((l) => l.name),
    ),
  );
  const hasDockerUser = (await ops.run({ op: 'chain-exists', chain: 'DOCKER-USER' })).exists === true;
  const hostChain = hasDockerUser ? 'DOCKER-USER' : 'FORWARD';

  try {
    await net.createLinks(hostLinks(plan), plan.linkGroup);
    for (const v of plan.vehicles) if (v.device) await net.joinDevice(v.device.interface, v.links.bridge);
    await inParallel(insides, PLUMBED_AT_ONCE, (i) => net.configureLinks(i.netns, i.links));
    await net.addRules(
      plan.hostRules.map((rule) => ({ ...rule, chain: hostChain })),
      'insert',
    );
    // Each -I goes to the top: inserted last-first, they end up in the planned order, ahead of the host's own.
    await net.addRules([...plan.hostInputRules].reverse(), 'insert');
    // A remote car's rules go into its namespace on its host (runtime/emulated/remote-cars.ts).
    await inParallel(
      plan.vehicles.filter((v) => v.netns),
      PLUMBED_AT_ONCE,
      (v) => net.addRules(v.rules, 'append', v.netns),
    );
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
