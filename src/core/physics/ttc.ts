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
 * Time to collision by the thesis's Eq. 3.7: TTC = d / (v1 cos θ1 + v2 cos θ2), the centre distance
 * over the closing speed. Blind to the cars' size and to lanes: two cars passing 2 m apart close
 * at full speed until they are abreast. Undefined while the pair is not closing.
 */
export function centreDistanceTtc(a: MovingPose, b: MovingPose): number | undefined {
  const closing = closingSpeed(a, b);
  if (!(closing > 1e-9)) return undefined;
  return centreDistance(a, b) / closing;
}

/** A car's footprint size [m]. */
export interface BodySize {
  length: number;
  width: number;
}

/** How a TTC app measures time to collision (`ttc:` of ttc-brake-sender). */
export type TtcMethod = 'geometric' | 'centre-distance';

/**
 * Time until the two footprints (rectangles of each car's length and width, centred on its pose)
 * first overlap, each car keeping its current velocity vector (speed along its heading) and
 * heading. 0 when they overlap now; undefined when they never will, as for cars passing in
 * neighbouring lanes. Exact for translating rectangles: the separating-axis test, per axis the
 * interval of time in which the projections overlap, intersected over the four axes.
 */
export function footprintOverlapTtc(a: MovingPose, aSize: BodySize, b: MovingPose, bSize: BodySize): number | undefined {
  const ac = Math.cos(a.yaw);
  const as = Math.sin(a.yaw);
  const bc = Math.cos(b.yaw);
  const bs = Math.sin(b.yaw);
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const rvx = b.v * bc - a.v * ac;
  const rvy = b.v * bs - a.v * as;
  let enter = 0;
  let exit = Infinity;
  // the four axes: a's heading and normal, b's heading and normal
  for (let k = 0; k < 4; k++) {
    const ux = k === 0 ? ac : k === 1 ? -as : k === 2 ? bc : -bs;
    const uy = k === 0 ? as : k === 1 ? ac : k === 2 ? bs : bc;
    const reach =
      (aSize.length / 2) * Math.abs(ux * ac + uy * as) +
      (aSize.width / 2) * Math.abs(-ux * as + uy * ac) +
      (bSize.length / 2) * Math.abs(ux * bc + uy * bs) +
      (bSize.width / 2) * Math.abs(-ux * bs + uy * bc);
    const apart = dx * ux + dy * uy;
    const rate = rvx * ux + rvy * uy;
    if (Math.abs(rate) < 1e-12) {
      if (Math.abs(apart) > reach) return undefined;
      continue;
    }
    const t1 = (-reach - apart) / rate;
    const t2 = (reach - apart) / rate;
    enter = Math.max(enter, Math.min(t1, t2));
    exit = Math.min(exit, Math.max(t1, t2));
    if (enter > exit) return undefined;
  }
  return enter;
}

/** TTC by the chosen method: footprint overlap, or Eq. 3.7's centre distance over closing speed. */
export function ttcBy(method: TtcMethod, a: MovingPose, aSize: BodySize, b: MovingPose, bSize: BodySize): number | undefined {
  return method === 'geometric' ? footprintOverlapTtc(a, aSize, b, bSize) : centreDistanceTtc(a, b);
}
