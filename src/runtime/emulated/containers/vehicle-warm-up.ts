import { VehicleAgent } from '../../../world/vehicle-agent.js';
import { bodySizes, createVehicleApps } from '../../../world/create-apps.js';
import type { LaserScan, Odometry } from '../../../core/control/vehicle-context.js';
import type { ResolvedScenario, ResolvedVehicle } from '../../../scenario/resolved.js';
import { driveMsg, odometryMsg, parseOdometryMsg } from '../../rosbridge/ros-messages.js';
import { decodeDatagram, encodeDatagram } from '../v2v/wire.js';
import { LaserScanEncoder, parseLaserScanMsg } from '../../rosbridge/laser-scan-msg.js';

export interface WarmUpLimits {
  ticks: number;
  budgetMs: number;
}

const DEFAULT_LIMITS: WarmUpLimits = { ticks: 300, budgetMs: 400 };

/**
 * Ticks a throw-away copy of the car's apps on synthetic odometry (every car coasting straight
 * from its start pose; with a lidar, a scan of a straight corridor), through the same message
 * encoding and parsing as the real link. Ten cars compiling their controllers in the first steps
 * of a run would otherwise all compete for the CPU at once and push physics late; here they do it
 * before reporting ready.
 * Returns the number of ticks done.
 */
export function warmUpVehicle(scenario: ResolvedScenario, spec: ResolvedVehicle, limits: WarmUpLimits = DEFAULT_LIMITS): number {
  const stepNs = BigInt(Math.round(scenario.physics.timestep * 1e9));
  const observed = scenario.vehicles.filter((v) => spec.observes.includes(v.name));
  const others = new Map<string, Odometry>();
  let own: Odometry | undefined;
  let scan: LaserScan | undefined;
  const corridor = spec.lidar ? corridorScan(spec.lidar) : undefined;
  const scanEncoder = new LaserScanEncoder({ frameId: `${spec.name}/base_link`, scanTime: spec.lidar ? 1 / spec.lidar.rate : 0 });
  let t = 0;
  let seq = 0;
  const agent = new VehicleAgent(spec.name, createVehicleApps(spec, bodySizes(scenario)), {
    now: () => t,
    own: () => own,
    others: () => others,
    scan: () => scan,
    publishDrive: (cmd) => JSON.stringify(driveMsg(cmd, BigInt(seq) * stepNs, `${spec.name}/base_link`)),
    transmit: (msg) => decodeDatagram(encodeDatagram({ id: msg.id, from: msg.from, to: msg.to, type: msg.type, sentAtNs: '0', body: msg.body, ...(msg.packet ? { packet: msg.packet } : {}) })),
    log: () => {},
  });
  const deadline = performance.now() + limits.budgetMs;
  for (; seq < limits.ticks && performance.now() < deadline; seq++) {
    t = seq * scenario.physics.timestep;
    own = roundTrip(spec, coasting(spec, t), BigInt(seq) * stepNs);
    for (const o of observed) others.set(o.name, roundTrip(o, coasting(o, t), BigInt(seq) * stepNs));
    if (corridor) scan = parseLaserScanMsg(JSON.parse(scanEncoder.encode({ ...corridor, t }, BigInt(seq) * stepNs)));
    agent.tick();
  }
  return seq;
}

function coasting(v: ResolvedVehicle, t: number): Odometry {
  const s = v.start.speed * t;
  return { t, x: v.start.x + s * Math.cos(v.start.yaw), y: v.start.y + s * Math.sin(v.start.yaw), yaw: v.start.yaw, v: v.start.speed, steer: 0, yawRate: 0 };
}

/** What a lidar at the middle of a straight 2 m wide corridor, facing along it, would see. */
function corridorScan(lidar: NonNullable<ResolvedVehicle['lidar']>): LaserScan {
  const angleMin = -lidar.fov / 2;
  const angleIncrement = lidar.fov / (lidar.beams - 1);
  const ranges = Float32Array.from({ length: lidar.beams }, (_, i) => Math.min(lidar.rangeMax, 1 / Math.abs(Math.sin(angleMin + i * angleIncrement))));
  return { t: 0, angleMin, angleIncrement, rangeMax: lidar.rangeMax, ranges };
}

function roundTrip(v: ResolvedVehicle, odom: Odometry, stampNs: bigint): Odometry {
  return parseOdometryMsg(JSON.parse(JSON.stringify(odometryMsg(v.name, odom, stampNs))));
}
