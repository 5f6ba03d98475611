import type { Odometry } from '../../../../core/control/vehicle-context.js';
import type { ResolvedVehicle } from '../../../../scenario/resolved.js';

/**
 * 0 on even steps, a small fraction on odd ones: a run's odometry and commands hold whole numbers
 * (a car at rest, facing along an axis) and fractions in every field, and code V8 optimized on
 * only one kind is thrown away at the other, inside the run.
 */
export const waver = (step: number): number => (step % 2 === 0 ? 0 : 1e-3 * Math.sin(step));

/** A car coasting from its start pose, its heading, speed, steering and yaw rate wavering. */
export function coastingOdometry(v: Pick<ResolvedVehicle, 'start'>, t: number, step: number): Odometry {
  const s = v.start.speed * t;
  const w = waver(step);
  return {
    t,
    x: v.start.x + s * Math.cos(v.start.yaw),
    y: v.start.y + s * Math.sin(v.start.yaw),
    yaw: v.start.yaw + w,
    v: v.start.speed + w,
    steer: w,
    yawRate: w,
  };
}
