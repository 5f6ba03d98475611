import type { LaserScan, Neighbour, VehicleApp, VehicleContext } from '../../control/vehicle-context.js';
import type { VehicleParams } from '../../physics/types.js';
import { projectedState } from '../facilities/projected-state.js';

export interface CaccOptions {
  /** The car ahead, whose beacons or CAMs (and gap) the follower tracks. */
  predecessor: string;
  /** The platoon leader, whose beaconed acceleration is also fed forward, weighted by leaderWeight. */
  leader?: string;
  leaderWeight: number;
  /** Desired gap = standstill + timeGap * own speed [s, m]. */
  timeGap: number;
  standstill: number;
  /** Gains on the gap error [1/s^2] and on its rate [1/s]. */
  kp: number;
  kd: number;
  /** A beacon or CAM older than this carries no acceleration to feed forward: plain ACC [s]; the scenario fills it (0.5 s when absent). */
  maxAge?: number;
  /** Where the gap comes from: the lidar beam straight ahead, or the beaconed position carried forward. */
  gap: 'lidar' | 'geometric';
}

/** Half-width of the cone of beams ahead whose shortest range is the lidar gap [rad]. */
const LIDAR_CONE = (3 * Math.PI) / 180;

/** Bumper-to-bumper distance to the car ahead along the straight line between them [m]. */
function geometricGap(ctx: VehicleContext, ahead: Neighbour, length: number): number | undefined {
  const own = ctx.own();
  if (!own) return undefined;
  const p = projectedState(ahead, ctx.now());
  return Math.hypot(p.x - own.x, p.y - own.y) - length;
}

/** Shortest range straight ahead, less the half length in front of the scan's origin (the car's centre) [m]. */
function lidarGap(scan: LaserScan | undefined, length: number): number | undefined {
  if (!scan) return undefined;
  let nearest = Infinity;
  const first = Math.max(0, Math.ceil((-LIDAR_CONE - scan.angleMin) / scan.angleIncrement));
  const last = Math.min(scan.ranges.length - 1, Math.floor((LIDAR_CONE - scan.angleMin) / scan.angleIncrement));
  for (let i = first; i <= last; i++) nearest = Math.min(nearest, scan.ranges[i]);
  return Number.isFinite(nearest) && nearest < scan.rangeMax ? nearest - length / 2 : undefined;
}

/**
 * Cooperative adaptive cruise control for a platoon follower: keeps a constant time gap to the
 * predecessor with a PD law on the gap error, plus the predecessor's (and, weighted, the leader's)
 * beaconed acceleration as feed-forward:
 *   e = gap - (standstill + timeGap * v),  de = (v_pred - v) - timeGap * a
 *   a_wanted = kp * e + kd * de + a_pred + leaderWeight * a_leader
 * With no beacon from the predecessor newer than maxAge it is plain ACC: no feed-forward, and the
 * predecessor's speed from the rate of change of the gap. The car's speed loop turns a_wanted into
 * a speed command; the controller keeps steering.
 */
export function createCacc(opts: CaccOptions, params: Pick<VehicleParams, 'a_max' | 'v_max' | 'v_min' | 'length'>): VehicleApp {
  // the gym's speed loop: acceleration = gain * (commanded - current speed), per sign
  const accelerateGain = (10 * params.a_max) / params.v_max;
  const brakeGain = (10 * params.a_max) / -params.v_min;
  let previous: { t: number; v: number; gap: number } | undefined;
  let ownAcceleration = 0;
  let gapRate = 0;
  let mode: 'cacc' | 'acc' | undefined;
  const maxAge = opts.maxAge ?? 0.5;
  return {
    onTick(ctx) {
      const own = ctx.own();
      const ahead = ctx.neighbours().get(opts.predecessor);
      const now = ctx.now();
      if (!own) return;
      const gap = opts.gap === 'lidar' ? lidarGap(ctx.scan(), params.length) : ahead && geometricGap(ctx, ahead, params.length);
      if (gap === undefined) return; // nothing known ahead yet: the controller's own speed
      if (previous && now > previous.t) {
        ownAcceleration = (own.v - previous.v) / (now - previous.t);
        gapRate = (gap - previous.gap) / (now - previous.t);
      }
      previous = { t: now, v: own.v, gap };
      const fresh = ahead !== undefined && now - ahead.state.t <= maxAge;
      const current = fresh ? 'cacc' : 'acc';
      if (current !== mode) ctx.log('cacc-mode', { mode: current, predecessor: opts.predecessor });
      mode = current;
      const predecessorSpeed = fresh ? ahead.state.v : own.v + gapRate;
      const error = gap - (opts.standstill + opts.timeGap * own.v);
      const errorRate = predecessorSpeed - own.v - opts.timeGap * ownAcceleration;
      let wanted = opts.kp * error + opts.kd * errorRate;
      if (fresh) {
        wanted += ahead.acceleration;
        const leader = opts.leader !== undefined ? ctx.neighbours().get(opts.leader) : undefined;
        if (leader && now - leader.state.t <= maxAge) wanted += opts.leaderWeight * leader.acceleration;
      }
      const command = own.v + wanted / (wanted >= 0 ? accelerateGain : brakeGain);
      ctx.overrideSpeed(Math.min(params.v_max, Math.max(0, command)));
    },
  };
}
