import type { VehicleParams } from './types.js';

/**
 * A car's body as 4 corners packed [x0, y0, x1, y1, x2, y2, x3, y3], in f1tenth_gym's get_vertices
 * order: rear-left, rear-right, front-right, front-left. The rectangle is length x width centred
 * on the state's (x, y). In the single-track model that point is the centre of gravity (front
 * axle lf ahead, rear axle lr behind), not the rear axle. Always a rectangle: the overlap test
 * relies on its edges being perpendicular.
 */
export type Footprint = Float64Array;

export interface Pose {
  x: number;
  y: number;
  yaw: number;
}

export function footprintCorners(
  pose: Pose,
  dims: Pick<VehicleParams, 'length' | 'width'>,
  out: Footprint = new Float64Array(8),
): Footprint {
  const c = Math.cos(pose.yaw);
  const s = Math.sin(pose.yaw);
  const halfL = dims.length / 2;
  const halfW = dims.width / 2;
  setCorner(out, 0, -halfL, halfW, c, s, pose);
  setCorner(out, 1, -halfL, -halfW, c, s, pose);
  setCorner(out, 2, halfL, -halfW, c, s, pose);
  setCorner(out, 3, halfL, halfW, c, s, pose);
  return out;
}

function setCorner(out: Footprint, i: number, bodyX: number, bodyY: number, c: number, s: number, pose: Pose): void {
  out[2 * i] = c * bodyX - s * bodyY + pose.x;
  out[2 * i + 1] = s * bodyX + c * bodyY + pose.y;
}

export interface OverlapOptions {
  /**
   * Whether bodies that only share boundary points collide. Default true (conservative). With
   * false the result agrees with f1tenth_gym's GJK, which reports exact contact as no collision.
   */
  touchingCounts?: boolean;
}

/**
 * Separating-axis test for two convex quadrilaterals (footprints). The candidate axes are the
 * edge directions of both; for rectangles those are the only two per body that matter.
 */
export function footprintsOverlap(a: Footprint, b: Footprint, opts: OverlapOptions = {}): boolean {
  const touchingCounts = opts.touchingCounts ?? true;
  return !separatedAlongEdgesOf(a, a, b, touchingCounts) && !separatedAlongEdgesOf(b, a, b, touchingCounts);
}

function separatedAlongEdgesOf(owner: Footprint, a: Footprint, b: Footprint, touchingCounts: boolean): boolean {
  // Two consecutive edges of a rectangle give both of its axes; parallel opposite edges add nothing.
  for (let e = 0; e < 2; e++) {
    const ex = owner[2 * e + 2] - owner[2 * e];
    const ey = owner[2 * e + 3] - owner[2 * e + 1];
    // Project on the edge direction itself: for a rectangle, edge e+1 is normal to edge e.
    let minA = Infinity;
    let maxA = -Infinity;
    let minB = Infinity;
    let maxB = -Infinity;
    for (let i = 0; i < 4; i++) {
      const pa = a[2 * i] * ex + a[2 * i + 1] * ey;
      if (pa < minA) minA = pa;
      if (pa > maxA) maxA = pa;
      const pb = b[2 * i] * ex + b[2 * i + 1] * ey;
      if (pb < minB) minB = pb;
      if (pb > maxB) maxB = pb;
    }
    const separated = touchingCounts ? maxA < minB || maxB < minA : maxA <= minB || maxB <= minA;
    if (separated) return true;
  }
  return false;
}

/**
 * All-pairs collision check as f1tenth_gym's collision_multiple: entry i is the index of a body
 * that i collides with, or -1. When i hits several, the gym keeps the last pair visited in
 * (i, j>i) order; so does this. A bounding-circle pretest skips far pairs without changing results.
 */
export function findCollisions(
  footprints: readonly Footprint[],
  opts: OverlapOptions = {},
  out: Int32Array = new Int32Array(footprints.length),
): Int32Array {
  const n = footprints.length;
  out.fill(-1, 0, n);
  for (let i = 0; i < n - 1; i++) {
    const a = footprints[i];
    const ax = (a[0] + a[2] + a[4] + a[6]) / 4;
    const ay = (a[1] + a[3] + a[5] + a[7]) / 4;
    const ar = boundingRadius(a, ax, ay);
    for (let j = i + 1; j < n; j++) {
      const b = footprints[j];
      const bx = (b[0] + b[2] + b[4] + b[6]) / 4;
      const by = (b[1] + b[3] + b[5] + b[7]) / 4;
      const reach = ar + boundingRadius(b, bx, by);
      const dx = ax - bx;
      const dy = ay - by;
      if (dx * dx + dy * dy > reach * reach * (1 + 1e-9)) continue;
      if (footprintsOverlap(a, b, opts)) {
        out[i] = j;
        out[j] = i;
      }
    }
  }
  return out;
}

function boundingRadius(f: Footprint, cx: number, cy: number): number {
  let r2 = 0;
  for (let i = 0; i < 4; i++) {
    const dx = f[2 * i] - cx;
    const dy = f[2 * i + 1] - cy;
    if (dx * dx + dy * dy > r2) r2 = dx * dx + dy * dy;
  }
  return Math.sqrt(r2);
}

/** A car's body where it is: its pose, half-size, footprint corners and heading's cosine and sine. */
export interface PlacedBody {
  x: number;
  y: number;
  cos: number;
  sin: number;
  halfLength: number;
  halfWidth: number;
  /** Half the diagonal: no point of the body is farther from its centre. */
  radius: number;
  corners: Footprint;
}

/** Places a body (a recorder reuses one object per car, so a step allocates nothing). */
export function placeBody(pose: Pose, dims: Pick<VehicleParams, 'length' | 'width'>, out?: PlacedBody): PlacedBody {
  const body = out ?? { x: 0, y: 0, cos: 1, sin: 0, halfLength: 0, halfWidth: 0, radius: 0, corners: new Float64Array(8) };
  body.x = pose.x;
  body.y = pose.y;
  body.cos = Math.cos(pose.yaw);
  body.sin = Math.sin(pose.yaw);
  body.halfLength = dims.length / 2;
  body.halfWidth = dims.width / 2;
  body.radius = Math.hypot(dims.length, dims.width) / 2;
  footprintCorners(pose, dims, body.corners);
  return body;
}

/**
 * Shortest distance between two car bodies (bumper to bumper), 0 when they touch or overlap [m].
 * Apart, two convex polygons are closest at a corner of one, so it is the nearest of the eight
 * corners to the other body, each measured in that body's own frame.
 */
export function bodyGap(a: PlacedBody, b: PlacedBody): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const reach = a.radius + b.radius;
  if (dx * dx + dy * dy <= reach * reach && footprintsOverlap(a.corners, b.corners)) return 0;
  return Math.sqrt(Math.min(cornersToBody(a.corners, b), cornersToBody(b.corners, a)));
}

/** Smallest squared distance from the corners to the body's rectangle. */
function cornersToBody(corners: Footprint, body: PlacedBody): number {
  const { cos: c, sin: s, halfLength, halfWidth } = body;
  let best = Infinity;
  for (let i = 0; i < 4; i++) {
    const rx = corners[2 * i] - body.x;
    const ry = corners[2 * i + 1] - body.y;
    const outX = Math.max(Math.abs(c * rx + s * ry) - halfLength, 0);
    const outY = Math.max(Math.abs(-s * rx + c * ry) - halfWidth, 0);
    best = Math.min(best, outX * outX + outY * outY);
  }
  return best;
}
