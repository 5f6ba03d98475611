import type { OccupancyGrid } from '../src/core/map/occupancy-grid.js';
import type { Pose2D } from '../src/core/sensing/lidar.js';

/** A small seeded generator (mulberry32): the same poses on every run of the suite. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** True when a disc of `radius` metres around (x, y) is free of walls (checked on its rim and centre). */
function discFree(grid: OccupancyGrid, x: number, y: number, radius: number): boolean {
  if (grid.isOccupiedWorld(x, y)) return false;
  for (let k = 0; k < 8; k++) {
    const a = (k * Math.PI) / 4;
    if (grid.isOccupiedWorld(x + radius * Math.cos(a), y + radius * Math.sin(a))) return false;
  }
  return true;
}

/**
 * `count` lidar poses spread over a map's free space, each with another car `gap` metres ahead
 * (facing it) where that spot is free too: scans that see walls at every distance and one car.
 */
export function freePosesWithCarAhead(grid: OccupancyGrid, count: number, gap = 4, seed = 1): { pose: Pose2D; other: Pose2D }[] {
  const random = seeded(seed);
  const width = grid.width * grid.resolution;
  const height = grid.height * grid.resolution;
  const out: { pose: Pose2D; other: Pose2D }[] = [];
  for (let tries = 0; out.length < count && tries < count * 10000; tries++) {
    const c = grid.cellToWorld(0, 0);
    const x = c.x + random() * width;
    const y = c.y + random() * height;
    const yaw = (random() * 2 - 1) * Math.PI;
    const ox = x + gap * Math.cos(yaw);
    const oy = y + gap * Math.sin(yaw);
    if (discFree(grid, x, y, 0.4) && discFree(grid, ox, oy, 0.4))
      out.push({ pose: { x, y, yaw }, other: { x: ox, y: oy, yaw: yaw + Math.PI } });
  }
  if (out.length < count) throw new Error(`found only ${out.length} free poses of ${count}`);
  return out;
}
