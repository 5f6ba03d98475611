import { type OrientedWaypoint, resamplePolyline } from './resample.js';
import type { TrajectorySample } from './trajectory.js';

export interface RecordOptions {
  spacing: number; // [m]
  /** Only samples at or after this time [s]. */
  from?: number;
  /** Only samples at or before this time [s]. */
  to?: number;
  /** Speeds below this are raised to it [m/s], so that a follower does not stop where the recorded car started. */
  minSpeed?: number;
}

/**
 * A driven trajectory as waypoints: the car's positions in the time window (up to its first
 * collision, if any) resampled every `spacing` metres, with the speed it drove there.
 */
export function recordWaypoints(samples: readonly TrajectorySample[], opts: RecordOptions): OrientedWaypoint[] {
  const from = opts.from ?? -Infinity;
  const to = opts.to ?? Infinity;
  const window: TrajectorySample[] = [];
  for (const s of samples) {
    if (s.t < from || s.t > to) continue;
    window.push(s);
    if (s.collided) break;
  }
  if (window.length < 2) throw new RangeError(`only ${window.length} sample(s) between t=${from} s and t=${to} s; widen the window`);
  const minSpeed = opts.minSpeed ?? 0;
  const points = window.map((s) => ({ x: s.x, y: s.y, speed: Math.max(minSpeed, s.speed) }));
  if (!points.some((p, i) => i > 0 && (p.x !== points[0].x || p.y !== points[0].y))) {
    throw new RangeError('the car did not move in that window');
  }
  return resamplePolyline(points, { spacing: opts.spacing });
}
