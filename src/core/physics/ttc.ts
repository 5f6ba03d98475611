/** Planar pose and longitudinal speed: all Eq. 3.7 needs. */
export interface MovingPose {
  x: number;
  y: number;
  yaw: number;
  v: number;
}

export const centreDistance = (a: MovingPose, b: MovingPose) => Math.hypot(b.x - a.x, b.y - a.y);

/**
 * Closing speed of the pair along the line between their centres: each car's longitudinal speed
 * times the cosine of the angle between its heading and the direction to the other car.
 */
export function closingSpeed(a: MovingPose, b: MovingPose): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const d = Math.hypot(dx, dy);
  if (d === 0) return 0;
  const towardsB = (a.v * (Math.cos(a.yaw) * dx + Math.sin(a.yaw) * dy)) / d;
  const towardsA = (b.v * (-Math.cos(b.yaw) * dx - Math.sin(b.yaw) * dy)) / d;
  return towardsB + towardsA;
}

/**
 * Time to collision by the thesis's Eq. 3.7: TTC = d / (v1 cos θ1 + v2 cos θ2).
 * Undefined while the pair is not closing (the denominator is zero or negative).
 */
export function timeToCollision(a: MovingPose, b: MovingPose): number | undefined {
  const closing = closingSpeed(a, b);
  if (!(closing > 1e-9)) return undefined;
  return centreDistance(a, b) / closing;
}
