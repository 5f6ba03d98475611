import type { Waypoint } from '../../core/control/waypoints.js';

export type OrientedWaypoint = Waypoint & { yaw: number };

export interface ResampleOptions {
  spacing: number; // [m] between output points
  /** The polyline closes on itself: the last point connects back to the first. */
  closed?: boolean;
}

/**
 * Points every `spacing` metres of arc length along a polyline, speeds interpolated linearly
 * between input points, yaw along the path. Consecutive duplicate points are dropped first. An
 * open polyline keeps both ends (the last gap may be shorter); a closed one spreads its points
 * evenly round the loop, so that the gap back to the first point is `spacing` too (within rounding).
 */
export function resamplePolyline(points: readonly Waypoint[], opts: ResampleOptions): OrientedWaypoint[] {
  if (!(opts.spacing > 0)) throw new RangeError(`spacing must be > 0, got ${opts.spacing}`);
  const pts = points.filter((p, i) => i === 0 || p.x !== points[i - 1].x || p.y !== points[i - 1].y);
  if (opts.closed && pts.length > 1 && pts[0].x === pts.at(-1)!.x && pts[0].y === pts.at(-1)!.y) pts.pop();
  if (pts.length < 2) throw new RangeError('a polyline needs at least two distinct points');
  const ring = opts.closed ? [...pts, pts[0]] : pts;
  const cumulative = [0];
  for (let i = 1; i < ring.length; i++)
    cumulative.push(cumulative[i - 1] + Math.hypot(ring[i].x - ring[i - 1].x, ring[i].y - ring[i - 1].y));
  const total = cumulative.at(-1)!;

  const count = opts.closed ? Math.max(3, Math.round(total / opts.spacing)) : Math.floor(total / opts.spacing + 1e-9) + 1;
  const step = opts.closed ? total / count : opts.spacing;
  const stations = Array.from({ length: count }, (_, k) => k * step);
  if (!opts.closed && total - stations.at(-1)! > 1e-9) stations.push(total);

  let seg = 1;
  const positions = stations.map((s) => {
    while (seg < ring.length - 1 && cumulative[seg] < s) seg++;
    const a = ring[seg - 1];
    const b = ring[seg];
    const len = cumulative[seg] - cumulative[seg - 1];
    const f = len > 0 ? Math.min(1, Math.max(0, (s - cumulative[seg - 1]) / len)) : 0;
    return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f, speed: a.speed + (b.speed - a.speed) * f };
  });
  const n = positions.length;
  return positions.map((p, i) => {
    // Central differences, one-sided at the ends of an open polyline.
    const prev = opts.closed ? positions[(i - 1 + n) % n] : positions[Math.max(0, i - 1)];
    const next = opts.closed ? positions[(i + 1) % n] : positions[Math.min(n - 1, i + 1)];
    return { ...p, yaw: Math.atan2(next.y - prev.y, next.x - prev.x) };
  });
}
