import { type SpeedBySteer, speedForSteer } from './gap-follow.js';
import type { LaserScan, VehicleApp, VehicleContext } from './vehicle-context.js';

export interface WallFollowOptions extends SpeedBySteer {
  side: 'left' | 'right';
  distance: number; // [m] wanted distance to the wall
  beamAngle: number; // θ [rad] between beam b (perpendicular) and beam a (towards the front)
  lookahead: number; // L [m]
  kp: number;
  ki: number;
  kd: number;
  maxSteer: number; // [rad]
}

/** Range of the beam nearest a bearing (car frame, left positive), or undefined outside the scan. */
export function rangeAt(scan: LaserScan, bearing: number): number | undefined {
  const i = Math.round((bearing - scan.angleMin) / scan.angleIncrement);
  if (i < 0 || i >= scan.ranges.length) return undefined;
  const r = scan.ranges[i];
  return Number.isFinite(r) && r > 0 && r < scan.rangeMax ? r : undefined;
}

export interface WallEstimate {
  /** Angle of the car to the wall [rad]: positive when heading away from it. */
  alpha: number;
  /** Perpendicular distance to the wall now [m]. */
  distance: number;
  /** Distance projected L metres ahead [m]. */
  projected: number;
}

/**
 * The two-beam wall estimate: beam b perpendicular to the car towards the wall, beam a θ from b
 * towards the front. α = atan((a cos θ − b) / (a sin θ)), D = b cos α, D_L = D + L sin α.
 */
export function estimateWall(scan: LaserScan, o: Pick<WallFollowOptions, 'side' | 'beamAngle' | 'lookahead'>): WallEstimate | undefined {
  const sign = o.side === 'left' ? 1 : -1;
  const b = rangeAt(scan, sign * (Math.PI / 2));
  const a = rangeAt(scan, sign * (Math.PI / 2 - o.beamAngle));
  if (a === undefined || b === undefined) return undefined;
  const alpha = Math.atan2(a * Math.cos(o.beamAngle) - b, a * Math.sin(o.beamAngle));
  const distance = b * Math.cos(alpha);
  return { alpha, distance, projected: distance + o.lookahead * Math.sin(alpha) };
}

// Anti-windup: the integral term alone never asks for more than full lock.
const integralLimit = (o: WallFollowOptions) => (o.ki > 0 ? o.maxSteer / o.ki : 0);

/**
 * PID on the projected distance to one wall. Error e = D_L − distance; a positive e on the left
 * wall steers left (towards it), on the right wall steers right. Holds the last command when a
 * beam sees nothing.
 */
export function createWallFollow(opts: WallFollowOptions): VehicleApp {
  const sign = opts.side === 'left' ? 1 : -1;
  let integral = 0;
  let lastError: number | undefined;
  let lastT = 0;
  return {
    onTick(ctx: VehicleContext) {
      const scan = ctx.scan();
      if (!scan) return;
      const wall = estimateWall(scan, opts);
      if (!wall) return;
      const t = ctx.now();
      const error = wall.projected - opts.distance;
      const dt = lastError === undefined ? 0 : t - lastT;
      const derivative = dt > 0 ? (error - lastError!) / dt : 0;
      const limit = integralLimit(opts);
      integral = Math.max(-limit, Math.min(limit, integral + error * dt));
      lastError = error;
      lastT = t;
      const u = opts.kp * error + opts.ki * integral + opts.kd * derivative;
      const steer = Math.max(-opts.maxSteer, Math.min(opts.maxSteer, sign * u));
      ctx.drive({ speed: speedForSteer(steer, opts.maxSteer, opts), steer });
    },
  };
}
