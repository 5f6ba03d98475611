import { join } from 'node:path';
import { loadMap } from '../src/core/map/load-map.js';
import type { OccupancyGrid } from '../src/core/map/occupancy-grid.js';
import { footprintHitsWall } from '../src/core/map/wall-collision.js';
import { precomputeDistanceField } from '../src/core/sensing/distance-field.js';
import { Lidar, type Pose2D } from '../src/core/sensing/lidar.js';
import { prepareLidarMap } from '../src/core/sensing/lidar-map.js';
import { packageRoot } from '../src/util/package-root.js';
import { freePosesWithCarAhead } from './lidar-poses.js';
import type { BenchRow, BenchSuite } from './main.js';

/** Every map in maps/: the scan target holds on each of them. */
const SHIPPED_MAPS = ['blind-corner', 'corridor', 'highway', 'intersection', 'loop', 'open'];

const mapPath = (name: string) => join(packageRoot(), 'maps', `${name}.yaml`);

const BATCH = 10;
const BATCHES = 400;

/**
 * Time per call [µs] over BATCHES timed batches of BATCH calls, after a warm-up: the median, and
 * the best batch (the least disturbed by other load on a shared machine).
 */
function timeMicros(call: (i: number) => void): { median: number; best: number } {
  for (let i = 0; i < 300; i++) call(i);
  const samples: number[] = [];
  let n = 0;
  for (let b = 0; b < BATCHES; b++) {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < BATCH; k++) call(n++);
    samples.push(Number(process.hrtime.bigint() - t0) / 1000 / BATCH);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[samples.length >> 1], best: samples[0] };
}

function medianMicros(call: (i: number) => void): number {
  return timeMicros(call).median;
}

function timedRow(name: string, call: (i: number) => void, target?: string): BenchRow {
  const { median, best } = timeMicros(call);
  return { suite: 'lidar', name, value: median, unit: 'us', target, note: `(median; best batch ${best.toFixed(1)} us)` };
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

function scanRows(mapName: string, grid: OccupancyGrid, poses: Pose2D[], other: (p: Pose2D) => Pose2D): BenchRow[] {
  const shared = prepareLidarMap(grid);
  const noisy = new Lidar(shared);
  const exact = new Lidar(shared, { noiseStd: 0 });
  const out = new Float32Array(noisy.beams);
  const others = poses.map((p) => [carCorners(other(p))]);
  return [
    timedRow(
      `${mapName}: default scan (1080 beams, noise, 1 car)`,
      (i) => noisy.scan(poses[i % poses.length], others[i % poses.length], out),
      '< 100 us',
    ),
    timedRow(`${mapName}: noise-free scan, walls only`, (i) => exact.scan(poses[i % poses.length], undefined, out)),
  ];
}

/** The bytes of a LidarMap's typed arrays (the distance field included). */
function tableBytes(map: object): number {
  return Object.values(map).reduce((sum: number, v) => sum + (ArrayBuffer.isView(v) ? v.byteLength : 0), 0);
}

export const suite: BenchSuite = {
  name: 'lidar',
  async run() {
    const corridor = await loadMap(mapPath('corridor'));
    const loop = await loadMap(mapPath('loop'));
    // Head-on: ego in lane 0 heading east, the other car 5 m ahead facing it.
    const corridorPoses = Array.from({ length: 50 }, (_, i) => ({ x: -28 + i * 1.1, y: -1, yaw: 0 }));
    // Along the loop's bottom straight and first turn, the other car 3 m ahead on the centreline.
    const loopPoses = Array.from({ length: 50 }, (_, i) => {
      const a = -Math.PI / 2 + (i / 50) * Math.PI;
      return i < 25 ? { x: -8 + i * 0.64, y: -8, yaw: 0 } : { x: 8 + 8 * Math.cos(a), y: 8 * Math.sin(a), yaw: a + Math.PI / 2 };
    });
    const rows = [
      ...scanRows('corridor', corridor, corridorPoses, (p) => ({ x: p.x + 5, y: p.y, yaw: Math.PI })),
      ...scanRows('loop', loop, loopPoses, (p) => ({ x: p.x + 3 * Math.cos(p.yaw), y: p.y + 3 * Math.sin(p.yaw), yaw: p.yaw })),
    ];

    // BENCH_OLD_BUILD: another checkout, built; its lidar scans the same scenes (on its own tables), timed in turn with this one.
    const oldBuild = process.env.BENCH_OLD_BUILD;
    const old = oldBuild
      ? {
          Lidar: ((await import(join(oldBuild, 'dist/core/sensing/lidar.js'))) as { Lidar: new (map: unknown) => Lidar }).Lidar,
          prepare: (
            (await import(join(oldBuild, 'dist/core/sensing/lidar-map.js'))) as { prepareLidarMap: (grid: OccupancyGrid) => unknown }
          ).prepareLidarMap,
        }
      : undefined;
    for (const name of SHIPPED_MAPS) {
      const grid = await loadMap(mapPath(name));
      const t0 = process.hrtime.bigint();
      const shared = prepareLidarMap(grid);
      const prepareMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const lidar = new Lidar(shared);
      const out = new Float32Array(lidar.beams);
      const scenes = freePosesWithCarAhead(grid, 200).map(({ pose, other }) => ({ pose, others: [carCorners(other)] }));
      const label = `${name}: 1080 beams, noise, 1 car, 200 free poses`;
      const now = timedRow(label, (i) => lidar.scan(scenes[i % scenes.length].pose, scenes[i % scenes.length].others, out), '< 30 us');
      rows.push(now);
      rows.push({
        suite: 'lidar',
        name: `${name}: prepareLidarMap (${grid.width}x${grid.height} cells)`,
        value: prepareMs,
        unit: 'ms',
        note: `(tables ${(tableBytes(shared) / 1e6).toFixed(1)} MB)`,
      });
      if (old) {
        const before = new old.Lidar(old.prepare(grid));
        const then = timedRow(`${label}, build before`, (i) =>
          before.scan(scenes[i % scenes.length].pose, scenes[i % scenes.length].others, out),
        );
        rows.push(then, {
          suite: 'lidar',
          name: `${name}: time per scan over the build before`,
          value: now.value / then.value,
          unit: 'ratio',
        });
      }
    }

    const t0 = process.hrtime.bigint();
    precomputeDistanceField(loop);
    rows.push({
      suite: 'lidar',
      name: 'loop: distance field precompute (730x410 cells)',
      value: Number(process.hrtime.bigint() - t0) / 1e6,
      unit: 'ms',
    });

    const footprints = loopPoses.map(carCorners);
    rows.push({
      suite: 'lidar',
      name: 'loop: footprintHitsWall (F1Tenth car)',
      value: medianMicros((i) => footprintHitsWall(footprints[i % footprints.length], loop)) * 1000,
      unit: 'ns',
      target: '<< 10 ms step',
    });
    return rows;
  },
};
