import { basename, join } from 'node:path';
import { realtimeChannelArgv } from '../../channel/ns3/realtime-argv.js';
import type { ContainerSpec } from '../../host/docker/docker-port.js';
import { CAVSIM_IMAGES } from '../../host/docker/images.js';
import { runLabels } from '../../host/docker/labels.js';
import { runTag } from '../../host/network/names.js';
import { type HostNetPlan, type HostNetVehicle, planHostNetwork } from '../../host/network/plan.js';
import { CONTROL_PORT, RELAY_CONTROL_SOURCE_PORT, V2V_PORT } from '../../ports.js';
import { RUN_FILES } from '../../run/run-files.js';
import { isRadio } from '../../scenario/channel-kinds.js';
import {
  type ResolvedNetwork,
  type ResolvedScenario,
  type ResolvedVehicle,
  runsOwnCode,
  type WiredNetwork,
} from '../../scenario/resolved.js';
import { LIGHT_CAR_PROGRAM, lightControllerText, notLight } from './light-car.js';
import type { Placement } from './placement.js';
import { STACK_SHARE } from './stack-share.js';

/** Where the run folder appears inside every container. */
export const CONTAINER_RUN_DIR = '/run/cavsim';
/** The run files a car reads (its scenario, the map's grid), copied into a remote car's CONTAINER_RUN_DIR. */
export const REMOTE_CAR_FILES = [RUN_FILES.scenario, RUN_FILES.mapGrid];

/**
 * Everything an emulated run will create, decided before anything exists: names, addresses,
 * container specs, the host network plan and the ns-3 argv. Serialisable; `cavsim plan` prints it.
 * Vehicle network namespaces are known only once containers run: the host plan carries pid 0
 * placeholders that `withContainerPids` fills in.
 */
export interface EmulatedRunPlan {
  runId: string;
  tag: string;
  runDir: string;
  simulator: ContainerSpec & { ip: string; controlUrl: string };
  /** `host`: a remote host's name (docs/multi-host.md): the car runs there and reads its run files from `copyIn`, not a bind. */
  vehicles: (ContainerSpec & { vehicle: string; ip: string; v2vIp: string; host?: string; copyIn?: string[] })[];
  /**
   * One per vehicle running its own code: cavsim's V2V relay. It owns the network namespace the
   * vehicle's container then joins (`shareNetworkOf`), so the namespace's rules exist before the
   * vehicle's code runs.
   */
  v2vRelays: (ContainerSpec & { vehicle: string; host?: string; copyIn?: string[] })[];
  hostNet: HostNetPlan;
  /**
   * Vehicles driven by a device cavsim does not start: the host relays the device's connection from
   * `listen` to the simulator, from the gateway's `relayPort`, which is how the simulator knows it.
   */
  externals: ExternalDevicePlan[];
  /** `obstacleFile`: where the run writes the map's walls for a wifi channel with `obstacles: map`. */
  /**
   * `calibrate`: csma and latency with the built-in program. ns-3 starts with the stack-share probe
   * delay (`args`), and is told on stdin the delay to apply for the run once the probes measured
   * the stack share (stack-calibration.ts): `delayS` less that share, and `jitterS`.
   */
  channel: {
    script: string | typeof BUILTIN_CHANNEL;
    args: string[];
    obstacleFile?: string;
    calibrate?: { delayS: number; jitterS: number; probeFrameS: number };
  };
  mapDir: string;
}

const DEFAULT_CPU_SHARES = 1024;

export interface ExternalDevicePlan {
  vehicle: string;
  listen: { host: string; port: number };
  /** The device's address: connections from anywhere else are closed at once. */
  from: string;
  /** The relay's own source address and port toward the simulator: this car's identity there. */
  relayFrom: { host: string; port: number };
  connectTimeout: number;
  /** The device's planned V2V address, when its interface is joined to the channel. */
  v2vIp?: string;
}

/** Source ports of the device relays on the gateway address (one per vehicle index), below Linux's ephemeral range. */
const DEVICE_RELAY_PORT_BASE = 31000;

/**
 * Taken from every container: without raw sockets a program cannot forge frames or source addresses,
 * so the only way between vehicles is eth1 and the channel (the rules planned in hostnet/plan.ts
 * close eth0), and the simulator can tell its clients apart by address.
 */
export const DROPPED_CAPABILITIES = ['NET_RAW'] as const;

/** The built-in real-time channel program, ns3-scripts/channel-tap.cc. */
export const BUILTIN_CHANNEL = 'builtin:channel-tap';

/**
 * `calibrateDelay: false` leaves the stack share in the measured delays (ns-3 applies the
 * configured delay from the start): for measuring what the calibration takes out.
 */
export function planEmulatedRun(
  scenario: ResolvedScenario,
  runId: string,
  runDir: string,
  opts: { keep?: boolean; calibrateDelay?: boolean; lightCars?: boolean; placement?: Placement } = {},
): EmulatedRunPlan {
  const remoteHost = opts.placement?.remote ?? {};
  const tag = runTag(runId);
  // Control subnet 10.211.X.0/24 beside the V2V subnet 10.210.X.0/24: both private to this run.
  const third = parseInt(tag.slice(0, 2), 16);
  const controlSubnet = `10.211.${third}.0/24`;
  const controlIp = (host: number) => `10.211.${third}.${host}`;
  const simulatorIp = controlIp(2);
  const network = scenario.network;
  const obstacleFile = isRadio(network) && network.obstacles === 'map' ? join(runDir, 'walls.grid') : undefined;
  // the built-in program says why each lost frame was lost; a user's own takes only the documented argv
  const builtin = scenario.network.script === undefined;
  const outcomesFile = builtin ? join(runDir, RUN_FILES.ns3Losses) : undefined;
  // a user's own program takes only the documented argv, so only the built-in one is calibrated
  const calibrate =
    builtin && !isRadio(network) && opts.calibrateDelay !== false
      ? {
          delayS: network.delay,
          jitterS: network.channel === 'latency' ? network.jitter : 0,
          probeFrameS: probeFrameSeconds(network),
        }
      : undefined;
  const inContainers = scenario.vehicles.map((v, i) => ({ v, i })).filter(({ v }) => !v.external);
  const hostNet = planHostNetwork({
    runId,
    vehicles: scenario.vehicles.flatMap((v): HostNetVehicle[] =>
      remoteHost[v.name]
        ? [{ name: v.name, remote: true }]
        : !v.external
          ? [{ name: v.name, netns: { pid: 0 } }]
          : v.external.v2v
            ? [{ name: v.name, device: v.external.v2v }]
            : [],
    ),
    // The control network is cavsim's own bridge, not a Docker network: see `plumbedByHost`.
    control: {
      subnet: controlSubnet,
      simulatorIp,
      hostIp: controlIp(1),
      members: [
        { ip: simulatorIp, netns: { pid: 0 } },
        // a remote car's eth0 is plumbed on its host, joined here by its host's control tunnel
        ...inContainers
          .filter(({ v }) => !remoteHost[v.name])
          .map(({ v, i }) => ({ vehicle: v.name, ip: controlIp(10 + i), netns: { pid: 0 } })),
      ],
    },
    guardedDevices: scenario.vehicles.flatMap((v) => (v.external?.from ? [{ from: v.external.from, port: v.external.listen.port }] : [])),
  });
  const v2vOf = new Map(hostNet.vehicles.map((v) => [v.name, v]));
  const relayFrom = (i: number) => ({ host: controlIp(1), port: DEVICE_RELAY_PORT_BASE + i });
  const mapDir = join(runDir, 'map');
  // The simulator (cavsim's own program) writes the run's CSVs; a vehicle, whose image may be
  // anyone's, only reads its scenario: it gets the folder read-only, so it can plant nothing there
  // (a link that root would write through, a line in the journal).
  const binds = [{ hostPath: runDir, containerPath: CONTAINER_RUN_DIR }];
  const vehicleBinds = [{ hostPath: runDir, containerPath: CONTAINER_RUN_DIR, readOnly: true }];
  const commonEnv = { CAVSIM_RUN_DIR: CONTAINER_RUN_DIR, CAVSIM_RUN_ID: runId, ...(opts.keep ? { CAVSIM_KEEP: '1' } : {}) };
  // Who may publish what on the control link: each vehicle by its address, the host by the gateway's,
  // an own-code car's V2V relay by its car's address and its privileged source port.
  const v2vRelayKeys = scenario.vehicles.flatMap((v, i) =>
    !v.external && runsOwnCode(v) ? [{ key: `${controlIp(10 + i)}:${RELAY_CONTROL_SOURCE_PORT}`, car: v.name }] : [],
  );
  const clients = {
    [controlIp(1)]: 'orchestrator',
    ...Object.fromEntries(
      scenario.vehicles.map((v, i) => (v.external ? [`${relayFrom(i).host}:${relayFrom(i).port}`, v.name] : [controlIp(10 + i), v.name])),
    ),
    ...Object.fromEntries(v2vRelayKeys.map((r) => [r.key, r.car])),
  };
  const controlUrl = `ws://${simulatorIp}:${CONTROL_PORT}`;
  const externals: ExternalDevicePlan[] = scenario.vehicles.flatMap((v, i) =>
    v.external
      ? [
          {
            vehicle: v.name,
            listen: v.external.listen,
            from: v.external.from ?? '',
            relayFrom: relayFrom(i),
            connectTimeout: v.external.connectTimeout,
            ...(v2vOf.get(v.name) ? { v2vIp: v2vOf.get(v.name)!.ip } : {}),
          },
        ]
      : [],
  );
  const peers = Object.fromEntries(hostNet.vehicles.map((v) => [v.name, `${v.ip}:${V2V_PORT}`]));
  const light = (v: ResolvedVehicle) => opts.lightCars === true && notLight(scenario, v) === undefined;
  const vehicles = inContainers.map(({ v, i }) => ({
    name: `cavsim-${tag}-${v.name}`,
    vehicle: v.name,
    image: v.image ?? CAVSIM_IMAGES.vehicle,
    ...(v.command ? { cmd: v.command } : light(v) ? { cmd: [LIGHT_CAR_PROGRAM] } : {}),
    labels: runLabels(runId, 'vehicle', v.name),
    env: {
      ...commonEnv,
      ...(light(v) ? { CAVSIM_LIGHT_CONTROLLER: lightControllerText(scenario, v) } : {}),
      CAVSIM_VEHICLE: v.name,
      CAVSIM_SIM_URL: controlUrl,
      CAVSIM_V2V_PEERS: JSON.stringify(Object.fromEntries(Object.entries(peers).filter(([n]) => n !== v.name))),
      CAVSIM_V2V_BIND: `${v2vOf.get(v.name)!.ip}:${V2V_PORT}`,
    },
    // a remote host has no run folder: the files a car reads are copied into its container before it starts
    ...(remoteHost[v.name] ? { host: remoteHost[v.name], copyIn: REMOTE_CAR_FILES } : { binds: vehicleBinds }),
    plumbedByHost: true,
    // eth1 and the anti-cheat rules are set from the host; the vehicle needs no extra privilege, and
    // own code must not bind its relay's privileged source port.
    capDrop: runsOwnCode(v) ? [...DROPPED_CAPABILITIES, 'NET_BIND_SERVICE'] : DROPPED_CAPABILITIES,
    resources: {
      ...(v.resources.cpus ? { nanoCpus: Math.round(v.resources.cpus * 1e9) } : {}),
      ...(v.resources.memory ? { memoryBytes: v.resources.memory } : {}),
    },
    init: true,
    ip: controlIp(10 + i),
    v2vIp: v2vOf.get(v.name)!.ip,
  }));

  // A vehicle running its own code (an image or command of anyone's) joins the network namespace of
  // its V2V relay, a cavsim container started first: the namespace's rules exist before that code runs.
  const ownCode = (i: number) => runsOwnCode(inContainers[i].v);
  const relayName = (vehicleContainer: string) => `${vehicleContainer}-v2v`;
  return {
    externals,
    runId,
    tag,
    runDir,
    mapDir,
    simulator: {
      name: `cavsim-${tag}-sim`,
      image: CAVSIM_IMAGES.simulator,
      labels: runLabels(runId, 'simulator'),
      env: {
        ...commonEnv,
        ...(scenario.mapFile !== undefined ? { CAVSIM_MAP: `${CONTAINER_RUN_DIR}/map/${basename(scenario.mapFile)}` } : {}),
        CAVSIM_BIND: `0.0.0.0:${CONTROL_PORT}`,
        CAVSIM_CLIENTS: JSON.stringify(clients),
        ...(v2vRelayKeys.length ? { CAVSIM_V2V_RELAYS: JSON.stringify(v2vRelayKeys.map((r) => r.key)) } : {}),
      },
      capDrop: DROPPED_CAPABILITIES,
      binds,
      plumbedByHost: true,
      // Every car wakes on the same odometry step; weighing physics like all of them together keeps
      // a burst of controller work from pushing the next step late.
      resources: { cpuShares: DEFAULT_CPU_SHARES * (scenario.vehicles.length + 1) },
      init: true,
      ip: simulatorIp,
      controlUrl,
    },
    vehicles: vehicles.map(({ plumbedByHost, ...v }, i) =>
      ownCode(i) ? { ...v, shareNetworkOf: relayName(v.name) } : { ...v, plumbedByHost },
    ),
    v2vRelays: vehicles
      .filter((_, i) => ownCode(i))
      .map((v) => ({
        name: relayName(v.name),
        vehicle: v.vehicle,
        image: CAVSIM_IMAGES.vehicle,
        cmd: ['node', '/opt/cavsim/dist/runtime/emulated/containers/v2v-relay-main.js'],
        labels: runLabels(runId, 'v2v-relay', v.vehicle),
        env: v.env,
        // on the car's host, beside it: the two share one network namespace
        ...(remoteHost[v.vehicle] ? { host: remoteHost[v.vehicle], copyIn: REMOTE_CAR_FILES } : { binds: vehicleBinds }),
        plumbedByHost: true,
        capDrop: DROPPED_CAPABILITIES,
        init: true,
      })),
    hostNet,
    channel: {
      script: scenario.network.script ?? BUILTIN_CHANNEL,
      args: realtimeChannelArgv({
        network: calibrate && !isRadio(network) ? probing(network) : network,
        taps: hostNet.channel.taps,
        ...(builtin || isRadio(network) ? { macs: hostNet.vehicles.map((v) => v.mac) } : {}),
        run: scenario.seed,
        ...(obstacleFile ? { obstacleFile } : {}),
        ...(outcomesFile ? { outcomesFile } : {}),
      }),
      ...(obstacleFile ? { obstacleFile } : {}),
      ...(calibrate ? { calibrate } : {}),
    },
  };
}

/**
 * How long the channel model itself holds a probe: its serialisation at the data rate (IPv4 + UDP
 * headers on `latency`, whose device sends the IP packet; Ethernet header and trailer too on csma).
 */
function probeFrameSeconds(network: WiredNetwork): number {
  const bytes = STACK_SHARE.sizeBytes + 28 + (network.channel === 'csma' ? 18 : 0);
  return (bytes * 8) / network.dataRate;
}

/** The network ns-3 starts with when the run calibrates its delay: the probe delay, no jitter. */
function probing(network: WiredNetwork & ResolvedNetwork): ResolvedNetwork {
  const delay = STACK_SHARE.probeDelayS;
  return network.channel === 'latency' ? { ...network, delay, jitter: 0 } : { ...network, delay };
}

/** Each container of the run that runs on another host (a remote car, its V2V relay) with that host's name. */
export function remoteContainerHosts(plan: Pick<EmulatedRunPlan, 'vehicles' | 'v2vRelays'>): Map<string, string> {
  return new Map([...plan.vehicles, ...plan.v2vRelays].flatMap((c) => (c.host ? [[c.name, c.host] as const] : [])));
}

/** The host plan with each namespace pointed at its running container: a vehicle's (or its V2V relay's), and the simulator's. */
export function withContainerPids(plan: HostNetPlan, pids: { vehicles: Record<string, number>; simulator: number }): HostNetPlan {
  const pidOf = (vehicle: string | undefined) => (vehicle === undefined ? pids.simulator : pids.vehicles[vehicle]);
  return {
    ...plan,
    vehicles: plan.vehicles.map((v) => (v.device || v.remote ? v : { ...v, netns: { pid: pidOf(v.name) } })),
    ...(plan.controlNet
      ? { controlNet: { ...plan.controlNet, members: plan.controlNet.members.map((m) => ({ ...m, netns: { pid: pidOf(m.vehicle) } })) } }
      : {}),
  };
}
