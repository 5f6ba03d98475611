import { controlVethNames, linkAlias, ruleComment } from '../../host/network/names.js';
import type { IptablesRule } from '../../host/network/operation-schema.js';
import { CONTROL_INTERFACE, V2V_INTERFACE } from '../../host/network/plan.js';
import { carVni, controlVni, planTunnel, type TunnelStep, VXLAN_MTU, VXLAN_PORT } from '../../host/network/tunnel-plan.js';
import type { EmulatedRunPlan } from './plan-emulated.js';

/** The run's own host in tunnel steps and journal entries: not a valid host name, so no hosts file can name it. */
export const RUN_HOST = '@run-host';

/** A remote host as the plan needs it: its name, index in the hosts file, tunnel address, and this host's address toward it. */
export interface RemoteEnd {
  name: string;
  index: number;
  address: string;
  runAddress: string;
}

export interface RemoteHostSteps {
  host: string;
  /** The host's own part, before its cars': the tunnel port's INPUT rules, the control bridge and its VXLAN to the run's control bridge. */
  setUp: TunnelStep[];
  /** Per car on the host, in order: its namespace's anti-cheat rules, its eth0 on the control bridge, its eth1 tunnel. */
  cars: Array<{ vehicle: string; container: string; steps: TunnelStep[] }>;
  /** VNIs this host's VXLAN devices take (checked free before anything is made). */
  vnis: number[];
}

export interface RemoteCarsPlan {
  /** On the run's host: each remote host's control VXLAN, each remote car's V2V VXLAN, then the tunnel port's INPUT rules. */
  runSide: TunnelStep[];
  hosts: RemoteHostSteps[];
  port: number;
}

const inputRules = (peers: readonly string[], comment: string): { accept: IptablesRule[]; drop: IptablesRule } => ({
  accept: peers.map((p) => ({ chain: 'INPUT', source: `${p}/32`, udpPort: VXLAN_PORT, jump: 'ACCEPT', comment })),
  drop: { chain: 'INPUT', udpPort: VXLAN_PORT, jump: 'DROP', comment },
});

/**
 * Every step that puts the plan's remote cars on their hosts (docs/multi-host.md): pure, touches
 * nothing. Per remote host a control bridge whose VXLAN (the host's control VNI) is a port of the
 * run's control bridge, a veth per car into its namespace as eth0 (same address as on one host, MTU
 * of the tunnel); per car its V2V tunnel (planTunnel) to its tap bridge here and its namespace's rules;
 * on every host the VXLAN port accepts only the peer's address (ACCEPT inserted first, DROP appended last).
 */
export function planRemoteCars(plan: EmulatedRunPlan, ends: readonly RemoteEnd[]): RemoteCarsPlan {
  const { runId, tag } = plan;
  const alias = linkAlias(runId);
  const comment = ruleComment(runId);
  const control = plan.hostNet.controlNet;
  if (!control) throw new Error('planRemoteCars: the run has no control bridge of its own');
  const netOf = new Map(plan.hostNet.vehicles.map((v) => [v.name, v]));
  const prefix = control.hostCidr.split('/')[1];
  const runSide: TunnelStep[] = [];
  const hosts = ends.flatMap((end): RemoteHostSteps[] => {
    const cars = plan.vehicles.filter((v) => v.host === end.name);
    if (!cars.length) return [];
    const vni = controlVni(runId, end.index);
    const vxlan = { op: 'create-vxlan', alias, port: VXLAN_PORT, mtu: VXLAN_MTU, vni } as const;
    const link = `vc-${tag}-${end.index}`;
    const bridge = `bc-${tag}`;
    runSide.push({
      host: RUN_HOST,
      id: `control vxlan ${link} vni ${vni} -> ${end.name}`,
      apply: { ...vxlan, name: link, local: end.runAddress, remote: end.address, bridge: control.bridge },
      inverse: { op: 'delete-link', name: link, alias },
    });
    const rules = inputRules([end.runAddress], comment);
    const dockerUser: IptablesRule = { chain: 'DOCKER-USER', in: bridge, out: bridge, jump: 'ACCEPT', comment };
    const deleteBridge = { op: 'delete-link', name: bridge, alias } as const;
    const setUp: TunnelStep[] = [
      ...rules.accept.map((rule) => ({
        host: end.name,
        id: `INPUT udp ${VXLAN_PORT} from ${rule.source} ACCEPT`,
        apply: { op: 'iptables-add', rule, position: 'insert' } as const,
        inverse: { op: 'iptables-delete', rule } as const,
      })),
      {
        host: end.name,
        id: `INPUT udp ${VXLAN_PORT} DROP`,
        apply: { op: 'iptables-add', rule: rules.drop, position: 'append' },
        inverse: { op: 'iptables-delete', rule: rules.drop },
      },
      { host: end.name, id: `control bridge ${bridge}`, apply: { op: 'create-bridge', name: bridge, alias }, inverse: deleteBridge },
      { host: end.name, id: `control bridge ${bridge} up`, apply: { op: 'link-up', name: bridge }, inverse: deleteBridge },
      {
        host: end.name,
        id: `DOCKER-USER ACCEPT on ${bridge}`,
        apply: { op: 'iptables-add', rule: dockerUser, position: 'insert' },
        inverse: { op: 'iptables-delete', rule: dockerUser },
      },
      {
        host: end.name,
        id: `control vxlan ${link} vni ${vni} -> run host`,
        apply: { ...vxlan, name: link, local: end.address, remote: end.runAddress, bridge },
        inverse: { op: 'delete-link', name: link, alias },
      },
    ];
    const carSteps = cars.map((car) => {
      const net = netOf.get(car.vehicle)!;
      // a car running its own code lives in its V2V relay's namespace, which the relay's container owns
      const owner = car.shareNetworkOf ?? car.name;
      const netns = { container: owner };
      const veth = controlVethNames(tag, String(net.index));
      const deleteVeth = { op: 'delete-link', name: veth.vethHost, alias } as const;
      const tunnel = planTunnel({
        runId,
        vni: carVni(runId, net.index),
        runHost: { host: RUN_HOST, address: end.runAddress },
        remote: { host: end.name, address: end.address },
        runSide: { link: `vx-${tag}-${net.index}`, bridge: net.links.bridge },
        remoteSide: {
          link: `vx-${tag}-${net.index}`,
          container: owner,
          inside: V2V_INTERFACE,
          mac: net.mac,
          cidr: net.cidr,
          neighbours: net.neighbours,
        },
      });
      runSide.push(...tunnel.runSide);
      const steps: TunnelStep[] = [
        // the namespace's rules hold before any link of it exists
        {
          host: end.name,
          id: `${owner}: ${net.rules.length} anti-cheat rules`,
          apply: { op: 'iptables-add-all', netns, rules: net.rules, position: 'append' },
          inverse: { op: 'iptables-delete-all', netns, rules: net.rules },
        },
        {
          host: end.name,
          id: `control veth ${veth.vethHost}`,
          apply: { op: 'create-veth', name: veth.vethHost, peer: veth.vethPeer, alias },
          inverse: deleteVeth,
        },
        { host: end.name, id: `${veth.vethHost} on ${bridge}`, apply: { op: 'enslave', name: veth.vethHost, bridge }, inverse: deleteVeth },
        {
          host: end.name,
          id: `${veth.vethPeer} -> ${owner} as ${CONTROL_INTERFACE}`,
          apply: {
            op: 'move-into-netns',
            name: veth.vethPeer,
            netns,
            newName: CONTROL_INTERFACE,
            cidr: `${car.ip}/${prefix}`,
            mtu: VXLAN_MTU,
          },
          inverse: deleteVeth,
        },
        ...tunnel.remoteSide,
      ];
      return { vehicle: car.vehicle, container: owner, steps };
    });
    return [{ host: end.name, setUp, cars: carSteps, vnis: [vni, ...cars.map((c) => carVni(runId, netOf.get(c.vehicle)!.index))] }];
  });
  const peers = inputRules(
    hosts.map((h) => ends.find((e) => e.name === h.host)!.address),
    comment,
  );
  if (hosts.length)
    runSide.push(
      {
        host: RUN_HOST,
        id: `INPUT udp ${VXLAN_PORT} from ${hosts.map((h) => h.host).join(', ')} ACCEPT`,
        apply: { op: 'iptables-add-all', rules: [...peers.accept].reverse(), position: 'insert' },
        inverse: { op: 'iptables-delete-all', rules: peers.accept },
      },
      {
        host: RUN_HOST,
        id: `INPUT udp ${VXLAN_PORT} DROP`,
        apply: { op: 'iptables-add', rule: peers.drop, position: 'append' },
        inverse: { op: 'iptables-delete', rule: peers.drop },
      },
    );
  return { runSide, hosts, port: VXLAN_PORT };
}
