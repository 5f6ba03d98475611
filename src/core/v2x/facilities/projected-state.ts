import type { Neighbour, Odometry } from '../../control/vehicle-context.js';

/** A neighbour's state carried forward to `t` at its beaconed speed and heading (dead reckoning). */
export function projectedState(n: Neighbour, t: number): Odometry {
  const dt = Math.max(0, t - n.state.t);
  const s = n.state;
  return { ...s, t, x: s.x + s.v * Math.cos(s.yaw) * dt, y: s.y + s.v * Math.sin(s.yaw) * dt };
}
