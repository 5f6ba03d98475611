import type { VehicleApp, VehicleContext } from './vehicle-context.js';

export interface LaneKeepingOptions {
  /** The lane's centre line: y = `y` in the map frame, driven towards +x (1) or -x (-1). */
  y: number;
  direction: 1 | -1;
  speed: number; // [m/s]
  /** The goal point lies this far ahead in time at the car's speed [s] ... */
  lookaheadTime: number;
  /** ... and never nearer than this [m]. */
  minLookahead: number;
  wheelbase: number; // lf + lr [m]
  maxSteer?: number; // [rad]
}

/**
 * Pure pursuit on a straight lane's centre line, in closed form: the goal point is the point of
 * the line `lookahead` metres ahead of the car's projection on it, and the steering angle is the
 * bicycle model's for the arc through it, atan(wheelbase · 2y / d²) (y the goal's lateral offset
 * in the car's frame, d its distance). The look-ahead grows with speed, as highway pure pursuit's
 * does, so the car does not weave at 30 m/s. A waypoint list would do the same, but its goal
 * search visits every waypoint each tick: for a thousand cars on a long road this costs nothing.
 */
export function createLaneKeeping(opts: LaneKeepingOptions): VehicleApp {
  const maxSteer = opts.maxSteer ?? Infinity;
  return {
    onTick(ctx: VehicleContext) {
      const own = ctx.own();
      if (!own) return;
      ctx.drive({ speed: opts.speed, steer: laneKeepingSteer(own, opts, maxSteer) });
    },
  };
}

export function laneKeepingSteer(
  pose: { x: number; y: number; yaw: number; v: number },
  opts: Omit<LaneKeepingOptions, 'speed'>,
  maxSteer = opts.maxSteer ?? Infinity,
): number {
  const lookahead = Math.max(opts.minLookahead, opts.lookaheadTime * Math.abs(pose.v));
  const dx = opts.direction * lookahead;
  const dy = opts.y - pose.y;
  const c = Math.cos(pose.yaw);
  const s = Math.sin(pose.yaw);
  const localX = c * dx + s * dy;
  const localY = -s * dx + c * dy;
  const curvature = (2 * localY) / (localX * localX + localY * localY);
  const steer = Math.atan(opts.wheelbase * curvature);
  return Math.max(-maxSteer, Math.min(maxSteer, steer));
}
