import type { OccupancyGrid } from '../map/occupancy-grid.js';

/** Tells whether a lidar return (sensor-frame angle [rad], range [m]) is the map's own wall. */
export type WallReturnTest = (angle: number, range: number) => boolean;

/**
 * A return is the map's wall when the map has an occupied cell on the beam within `margin` beyond
 * it: the beam ended where the map says it would. `margin` [m] covers the range noise and the
 * grid's cell size (`wallMargin`), so an object closer to a wall than that is taken for the wall.
 * The beam is sampled every half cell, so a wall one cell thick is not stepped over.
 */
export function mapWallReturns(grid: OccupancyGrid, pose: { x: number; y: number; yaw: number }, margin: number): WallReturnTest {
  const step = grid.resolution / 2;
  const samples = Math.max(1, Math.ceil(margin / step));
  return (angle, range) => {
    const c = Math.cos(pose.yaw + angle);
    const s = Math.sin(pose.yaw + angle);
    for (let k = 0; k <= samples; k++) {
      const r = range + (k * margin) / samples;
      if (grid.isOccupiedWorld(pose.x + r * c, pose.y + r * s)) return true;
    }
    return false;
  };
}

/** The margin beyond a return that `mapWallReturns` looks at: two cells, or four noise deviations if more [m]. */
export const wallMargin = (resolution: number, noiseStd: number) => Math.max(2 * resolution, 4 * noiseStd);
