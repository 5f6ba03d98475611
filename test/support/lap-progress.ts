import type { TrajectorySample } from '../../src/api/waypoints/trajectory.js';

/** The loop map's centreline: two 16 m straights and two half circles of radius 8 m. */
export const LOOP_CENTRELINE_LENGTH = 2 * 16 + 2 * Math.PI * 8;

/** Net heading change in turns (counter-clockwise positive) and path length driven. */
export function lapProgress(samples: readonly TrajectorySample[]): { turns: number; distance: number } {
  let heading = 0;
  let distance = 0;
  for (let i = 1; i < samples.length; i++) {
    let d = samples[i].yaw - samples[i - 1].yaw;
    d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
    heading += d;
    distance += Math.hypot(samples[i].x - samples[i - 1].x, samples[i].y - samples[i - 1].y);
  }
  return { turns: heading / (2 * Math.PI), distance };
}
