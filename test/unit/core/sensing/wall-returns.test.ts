import { describe, expect, it } from 'vitest';
import { Lidar } from '../../../../src/core/sensing/lidar.js';
import { clusterScan } from '../../../../src/core/sensing/scan-objects.js';
import { mapWallReturns, wallMargin } from '../../../../src/core/sensing/wall-returns.js';
import { gridFrom } from '../map/ascii-grid.js';

// 20 m x 20 m at 5 cm: a pillar of 0.6 m x 0.6 m at (10, 14) and a wall one cell thick at y = 6.
const grid = gridFrom(
  400,
  400,
  0.05,
  { x: 0, y: 0, yaw: 0 },
  (col, row) => (col >= 194 && col < 206 && row >= 274 && row < 286) || row === 120,
);
const OPTS = { gap: 0.3, minPoints: 3, maxExtent: 1.5 };
const pose = { x: 10, y: 10, yaw: Math.PI / 2 }; // looking north, at the pillar 4 m ahead
/** A car's footprint (0.58 m x 0.31 m) at (x, y), across the lidar's view. */
const car = (x: number, y: number): [number, number][] => [
  [x - 0.29, y - 0.155],
  [x + 0.29, y - 0.155],
  [x + 0.29, y + 0.155],
  [x - 0.29, y + 0.155],
];

describe("a lidar's returns against the map", () => {
  it('takes the pillar and the wall for the map (no object), a car for an object, with noise too', () => {
    for (const noiseStd of [0, 0.01]) {
      const lidar = new Lidar(grid, { beams: 1080, fov: 4.7, rangeMax: 30, noiseStd, seed: 7 });
      const ranges = lidar.scan(pose, [car(12, 12)]);
      const scan = { t: 0, angleMin: lidar.angleMin, angleIncrement: lidar.angleIncrement, rangeMax: lidar.rangeMax, ranges };
      const isWall = mapWallReturns(grid, pose, wallMargin(grid.resolution, noiseStd));
      // without the map: the pillar is an object (and so is the car)
      const toMap = (c: { x: number; y: number }) => ({ x: pose.x - c.y, y: pose.y + c.x });
      const plain = clusterScan(scan, OPTS).map(toMap);
      expect(plain.some((o) => Math.hypot(o.x - 10, o.y - 13.7) < 0.3)).toBe(true);
      // with it: only the car, at its near faces
      const objects = clusterScan(scan, OPTS, isWall).map(toMap);
      expect(objects).toHaveLength(1);
      expect(Math.hypot(objects[0].x - 12, objects[0].y - 12)).toBeLessThan(0.35);
    }
  });

  it('says a return in open space is no wall, and one at a wall one cell thick is', () => {
    const isWall = mapWallReturns(grid, { x: 10, y: 10, yaw: 0 }, wallMargin(0.05, 0.01));
    expect(isWall(-Math.PI / 2, 4)).toBe(true); // straight down to the wall's face at y = 6.05
    expect(isWall(-Math.PI / 2, 3.8)).toBe(false);
    expect(isWall(0, 5)).toBe(false);
    expect(wallMargin(0.05, 0.01)).toBeCloseTo(0.1, 12);
    expect(wallMargin(0.05, 0.1)).toBeCloseTo(0.4, 12);
  });
});
