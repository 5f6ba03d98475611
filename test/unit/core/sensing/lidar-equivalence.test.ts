import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadMap } from '../../../../src/core/map/load-map.js';
import type { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { Lidar, type LidarOptions, type Pose2D } from '../../../../src/core/sensing/lidar.js';
import { prepareLidarMap } from '../../../../src/core/sensing/lidar-map.js';
import { ReferenceLidar } from './reference-lidar.js';

const MAPS = fileURLToPath(new URL('../../../../maps/', import.meta.url));
const SHIPPED = ['blind-corner', 'corridor', 'highway', 'intersection', 'loop', 'open'];

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

function carCorners(p: Pose2D): [number, number][] {
  const c = Math.cos(p.yaw);
  const s = Math.sin(p.yaw);
  return [
    [-0.29, 0.155],
    [-0.29, -0.155],
    [0.29, -0.155],
    [0.29, 0.155],
  ].map(([bx, by]) => [p.x + c * bx - s * by, p.y + s * bx + c * by]);
}

/** Free lidar poses anywhere on the map, each with cars around it: ahead, beside, straight behind (straddling ±π), far off, and one touching the lidar. */
function scenes(grid: OccupancyGrid, count: number, random: () => number) {
  const origin = grid.cellToWorld(0, 0);
  const out: { pose: Pose2D; others: [number, number][][] }[] = [];
  while (out.length < count) {
    const pose = {
      x: origin.x + random() * grid.width * grid.resolution,
      y: origin.y + random() * grid.height * grid.resolution,
      yaw: (random() * 2 - 1) * Math.PI,
    };
    if (grid.isOccupiedWorld(pose.x, pose.y)) continue;
    const at = (distance: number, bearing: number, yaw: number) =>
      carCorners({ x: pose.x + distance * Math.cos(pose.yaw + bearing), y: pose.y + distance * Math.sin(pose.yaw + bearing), yaw });
    const others = [
      at(0.5 + random() * 8, (random() - 0.5) * 2, random() * 7),
      at(1 + random() * 3, Math.PI, random() * 7),
      at(0.8 + random(), Math.PI + (random() - 0.5) * 0.2, pose.yaw),
      at(2 + random() * 40, random() * 7, random() * 7),
      at(0.1 * random(), 0, random() * 7),
    ];
    out.push({ pose, others: others.slice(0, 1 + Math.floor(random() * others.length)) });
  }
  return out;
}

describe('the faster lidar gives the ranges the lidar gave before', () => {
  const options: [string, LidarOptions][] = [
    ['the default scan (1080 beams, noise)', {}],
    ['a full circle without noise', { beams: 720, fov: 2 * Math.PI, noiseStd: 0 }],
    ['a short-range, coarse scan', { beams: 61, fov: 3, rangeMax: 4, noiseStd: 0.05, seed: 9 }],
  ];
  for (const name of SHIPPED) {
    it(`${name}: every range identical on random poses with other cars`, async () => {
      const grid = await loadMap(join(MAPS, `${name}.yaml`));
      const shared = prepareLidarMap(grid);
      const random = seeded(name.length * 7919);
      const poses = scenes(grid, 40, random);
      for (const [, opts] of options) {
        const fast = new Lidar(shared, opts);
        const reference = new ReferenceLidar(shared, opts);
        for (const { pose, others } of poses) {
          const got = fast.scan(pose, others);
          const want = reference.scan(pose, others);
          expect(Array.from(got)).toEqual(Array.from(want));
        }
      }
    });
  }

  for (const name of ['loop', 'intersection', 'open']) {
    it(`${name}: every range identical in a fleet, most cars hidden by walls or out of view`, async () => {
      const grid = await loadMap(join(MAPS, `${name}.yaml`));
      const shared = prepareLidarMap(grid);
      const random = seeded(name.length * 104729);
      const origin = grid.cellToWorld(0, 0);
      const free = (): Pose2D => {
        for (;;) {
          const p = {
            x: origin.x + random() * grid.width * grid.resolution,
            y: origin.y + random() * grid.height * grid.resolution,
            yaw: (random() * 2 - 1) * Math.PI,
          };
          if (!grid.isOccupiedWorld(p.x, p.y)) return p;
        }
      };
      const fast = new Lidar(shared);
      const reference = new ReferenceLidar(shared);
      let hitCars = 0;
      for (let scene = 0; scene < 25; scene++) {
        const fleet = Array.from({ length: 60 }, free);
        const pose = fleet[0];
        const others = fleet.slice(1).map(carCorners);
        const got = fast.scan(pose, others);
        const want = reference.scan(pose, others);
        expect(Array.from(got)).toEqual(Array.from(want));
        const exact = new ReferenceLidar(shared, { noiseStd: 0 });
        const walls = exact.scan(pose);
        hitCars += exact.scan(pose, others).filter((r, i) => r < walls[i]).length;
      }
      expect(hitCars).toBeGreaterThan(100); // beams that end on a car: the scenes test the cars too
    });
  }
});
