import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMap } from '../../../../src/core/map/load-map.js';
import type { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { precomputeDistanceField } from '../../../../src/core/sensing/distance-field.js';
import { F1TENTH_LIDAR_DEFAULTS, Lidar } from '../../../../src/core/sensing/lidar.js';
import { prepareLidarMap } from '../../../../src/core/sensing/lidar-map.js';
import { asciiGrid, gridFrom } from '../map/ascii-grid.js';

type Corner = [number, number];
function rect(cx: number, cy: number, yaw: number, length: number, width: number): Corner[] {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return [
    [-length / 2, width / 2],
    [-length / 2, -width / 2],
    [length / 2, -width / 2],
    [length / 2, width / 2],
  ].map(([bx, by]) => [cx + c * bx - s * by, cy + s * bx + c * by] as Corner);
}

// 10 m x 15 m at 5 cm, one wall cell thick at x in [7.5, 7.55]; the map edge bounds everything else.
const wallAt75 = gridFrom(200, 300, 0.05, { x: 0, y: 0, yaw: 0 }, (col) => col === 150);
// beams at -90, -45, 0, 45, 90 degrees
const FIVE = { beams: 5, fov: Math.PI, noiseStd: 0 };

describe('precomputeDistanceField', () => {
  it('matches brute force, with the ring outside the grid counting as obstacles', () => {
    const grid = asciiGrid(['..........', '...#......', '..........', '.......#..', '..........', '..........'], 0.5);
    const field = precomputeDistanceField(grid);
    for (let row = 0; row < grid.height; row++) {
      for (let col = 0; col < grid.width; col++) {
        let best = Infinity;
        for (let r = -1; r <= grid.height; r++) {
          for (let c = -1; c <= grid.width; c++) {
            if (grid.isOccupiedCell(c, r)) best = Math.min(best, Math.hypot(c - col, r - row));
          }
        }
        expect(field[row * grid.width + col]).toBeCloseTo(best * 0.5, 5);
      }
    }
  });
});

describe('Lidar', () => {
  it("uses f1tenth_gym's defaults", () => {
    const lidar = new Lidar(wallAt75);
    expect(F1TENTH_LIDAR_DEFAULTS).toEqual({ beams: 1080, fov: 4.7, rangeMax: 30, noiseStd: 0.01, seed: 12345 });
    expect([lidar.beams, lidar.fov, lidar.rangeMax, lidar.noiseStd]).toEqual([1080, 4.7, 30, 0.01]);
    expect(lidar.angleMin).toBe(-2.35);
    expect(lidar.angleIncrement).toBeCloseTo(4.7 / 1079, 15);
  });

  it('measures a wall straight ahead, at 45 degrees, and the map edge', () => {
    const lidar = new Lidar(wallAt75, FIVE);
    const r = lidar.scan({ x: 2, y: 7.5, yaw: 0 });
    expect(r[2]).toBeCloseTo(5.5, 4); // wall face at x = 7.5
    expect(r[1]).toBeCloseTo(5.5 * Math.SQRT2, 4);
    expect(r[3]).toBeCloseTo(5.5 * Math.SQRT2, 4);
    expect(r[0]).toBeCloseTo(7.5, 4); // bottom edge of the map, y = 0
    expect(r[4]).toBeCloseTo(7.5, 4); // top edge, y = 15
  });

  it('rotates the beams with the pose yaw', () => {
    const lidar = new Lidar(wallAt75, FIVE);
    const r = lidar.scan({ x: 2, y: 7.5, yaw: Math.PI / 2 });
    expect(r[0]).toBeCloseTo(5.5, 4); // now the right-hand beam faces the wall
    expect(r[2]).toBeCloseTo(7.5, 4);
    expect(r[4]).toBeCloseTo(2, 4); // left edge of the map, x = 0
  });

  it('sees another car at a known distance and only in the beams it covers', () => {
    const lidar = new Lidar(wallAt75, FIVE);
    const car = rect(4, 7.5, 0, 0.58, 0.31); // rear face at x = 3.71
    const r = lidar.scan({ x: 2, y: 7.5, yaw: 0 }, [car]);
    expect(r[2]).toBeCloseTo(1.71, 5);
    expect(r[1]).toBeCloseTo(5.5 * Math.SQRT2, 4);
    expect(r[3]).toBeCloseTo(5.5 * Math.SQRT2, 4);
    // rotated 90 degrees it shows its side (half-width 0.29 along x now) at 4 - 0.155
    const side = lidar.scan({ x: 2, y: 7.5, yaw: 0 }, [rect(4, 7.5, Math.PI / 2, 0.58, 0.31)]);
    expect(side[2]).toBeCloseTo(4 - 0.155 - 2, 5);
    // packed corners (physics' Footprint) work the same way
    const packed = lidar.scan({ x: 2, y: 7.5, yaw: 0 }, [new Float64Array(car.flat())]);
    expect(packed[2]).toBeCloseTo(1.71, 5);
  });

  it('sees a car at 45 degrees along the beam', () => {
    const lidar = new Lidar(wallAt75, FIVE);
    const d = 3;
    const car = rect(2 + d * Math.SQRT1_2, 7.5 + d * Math.SQRT1_2, Math.PI / 4, 0.58, 0.31);
    const r = lidar.scan({ x: 2, y: 7.5, yaw: 0 }, [car]);
    expect(r[3]).toBeCloseTo(d - 0.29, 5);
    expect(r[2]).toBeCloseTo(5.5, 4);
  });

  it('sees a car behind when the field of view wraps around', () => {
    const lidar = new Lidar(wallAt75, { beams: 361, fov: 2 * Math.PI, noiseStd: 0 });
    const r = lidar.scan({ x: 2, y: 7.5, yaw: 0 }, [rect(0.5, 7.5, 0, 0.58, 0.31)]);
    expect(r[0]).toBeCloseTo(1.21, 5); // beam at -pi
    expect(r[360]).toBeCloseTo(1.21, 5); // beam at +pi
    expect(r[180]).toBeCloseTo(5.5, 4);
  });

  it('reports rangeMax when nothing is in range', () => {
    const open = gridFrom(400, 400, 0.05, { x: -10, y: -10, yaw: 0 }, () => false);
    const lidar = new Lidar(open, { noiseStd: 0, rangeMax: 5 });
    const r = lidar.scan({ x: 0, y: 0, yaw: 0.3 });
    expect(Array.from(r).every((v) => v === 5)).toBe(true);
  });

  it('reports 0 from inside an obstacle', () => {
    const lidar = new Lidar(wallAt75, FIVE);
    expect(Array.from(lidar.scan({ x: 7.52, y: 7.5, yaw: 0 }))).toEqual([0, 0, 0, 0, 0]);
  });

  it('works on a map whose origin is rotated', () => {
    // the same wall, but the map frame is rotated 90 degrees: map x runs along world y
    const rotated = gridFrom(200, 300, 0.05, { x: 0, y: 0, yaw: Math.PI / 2 }, (col) => col === 150);
    const lidar = new Lidar(rotated, FIVE);
    // world (-7.5, 2) is map (2, 7.5); facing world +y is facing map +x
    expect(lidar.scan({ x: -7.5, y: 2, yaw: Math.PI / 2 })[2]).toBeCloseTo(5.5, 4);
  });

  it('matches a fine-step reference ray march on the loop map', async () => {
    const grid = await loadMap(path.resolve('maps/loop.yaml'));
    const lidar = new Lidar(grid, { beams: 97, noiseStd: 0, rangeMax: 12 });
    for (const pose of [
      { x: 0, y: -8, yaw: 0 },
      { x: 10, y: -7.5, yaw: 0.4 },
      { x: 15.8, y: 0.3, yaw: 1.6 },
      { x: -3, y: 8.6, yaw: 3.1 },
    ]) {
      const r = lidar.scan(pose);
      for (let i = 0; i < lidar.beams; i++) {
        const ref = referenceRange(grid, pose, pose.yaw + lidar.angleMin + i * lidar.angleIncrement, 12);
        expect(Math.abs(r[i] - ref)).toBeLessThan(0.0021);
      }
    }
  });

  it('matches the reference in dense random clutter, at any heading, and on a shared LidarMap', () => {
    let seed = 99;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const occupiedCells = new Set<number>();
    for (let k = 0; k < 60 * 50; k++) if (rand() < 0.12) occupiedCells.add(k);
    const grid = gridFrom(60, 50, 0.1, { x: -3, y: -2, yaw: -0.4 }, (c, r) => occupiedCells.has(r * 60 + c));
    const shared = prepareLidarMap(grid);
    const lidar = new Lidar(shared, { beams: 181, fov: 2 * Math.PI, noiseStd: 0, rangeMax: 4 });
    let checked = 0;
    for (let n = 0; n < 20; n++) {
      const col = Math.floor(rand() * 60);
      const row = Math.floor(rand() * 50);
      if (grid.isOccupiedCell(col, row)) continue;
      const p = grid.cellToWorld(col, row);
      const pose = { x: p.x + (rand() - 0.5) * 0.09, y: p.y + (rand() - 0.5) * 0.09, yaw: rand() * 6.3 };
      const r = lidar.scan(pose);
      for (let i = 0; i < lidar.beams; i++) {
        const ref = exactDdaRange(grid, pose, pose.yaw + lidar.angleMin + i * lidar.angleIncrement, 4);
        expect(Math.abs(r[i] - ref)).toBeLessThan(1e-5);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2000);
  });

  it('follows a row or column past runs longer than the tables count (RUN_CAP cells)', () => {
    // 50 m x 50 m at 5 cm, free but for two wall cells 45 m from the lidar, along x and along y.
    const grid = gridFrom(1000, 1000, 0.05, { x: 0, y: 0, yaw: 0 }, (c, r) => (c === 950 && r === 20) || (c === 20 && r === 950));
    const lidar = new Lidar(grid, { beams: 41, fov: 0.02, noiseStd: 0, rangeMax: 60 });
    for (const pose of [
      { x: 1.02, y: 1.03, yaw: 0 },
      { x: 1.03, y: 1.02, yaw: Math.PI / 2 },
      { x: 48.5, y: 1.02, yaw: Math.PI },
    ]) {
      const r = lidar.scan(pose);
      for (let i = 0; i < lidar.beams; i++) {
        const ref = exactDdaRange(grid, pose, pose.yaw + lidar.angleMin + i * lidar.angleIncrement, 60);
        expect(Math.abs(r[i] - ref)).toBeLessThan(1e-5);
      }
    }
  });

  it('is deterministic for a seed and noise-free when noiseStd is 0', () => {
    const pose = { x: 2, y: 7.5, yaw: 0.1 };
    const a = new Lidar(wallAt75, { seed: 7 });
    const b = new Lidar(wallAt75, { seed: 7 });
    const c = new Lidar(wallAt75, { seed: 8 });
    const exact = new Lidar(wallAt75, { noiseStd: 0 });
    const sa1 = Array.from(a.scan(pose));
    const sa2 = Array.from(a.scan(pose));
    expect(Array.from(b.scan(pose))).toEqual(sa1);
    expect(Array.from(b.scan(pose))).toEqual(sa2);
    expect(Array.from(c.scan(pose))).not.toEqual(sa1);
    expect(sa2).not.toEqual(sa1); // noise moves on between scans
    a.reseed(7);
    expect(Array.from(a.scan(pose))).toEqual(sa1);

    const e1 = exact.scan(pose);
    expect(Array.from(exact.scan(pose))).toEqual(Array.from(e1));
    // the noise has the configured spread
    const diffs = sa1.map((v, i) => v - e1[i]);
    const mean = diffs.reduce((s, d) => s + d, 0) / diffs.length;
    const std = Math.sqrt(diffs.reduce((s, d) => s + (d - mean) ** 2, 0) / diffs.length);
    expect(Math.abs(mean)).toBeLessThan(0.002);
    expect(std).toBeGreaterThan(0.009);
    expect(std).toBeLessThan(0.011);
  });

  it('writes into a caller buffer', () => {
    const lidar = new Lidar(wallAt75, FIVE);
    const out = new Float32Array(5);
    expect(lidar.scan({ x: 2, y: 7.5, yaw: 0 }, [], out)).toBe(out);
    expect(out[2]).toBeCloseTo(5.5, 4);
  });
});

/** Walks the ray in 1 mm steps until it enters an occupied cell (or leaves the map). */
function referenceRange(grid: OccupancyGrid, pose: { x: number; y: number }, angle: number, max: number): number {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  for (let t = 0; t < max; t += 0.001) if (grid.isOccupiedWorld(pose.x + c * t, pose.y + s * t)) return t;
  return max;
}

/** Amanatides-Woo grid traversal: exact distance to the first occupied (or off-map) cell. */
function exactDdaRange(grid: OccupancyGrid, pose: { x: number; y: number }, angle: number, max: number): number {
  const u = grid.gridX(pose.x, pose.y);
  const v = grid.gridY(pose.x, pose.y);
  const dx = Math.cos(angle - grid.origin.yaw);
  const dy = Math.sin(angle - grid.origin.yaw);
  let col = Math.floor(u);
  let row = Math.floor(v);
  const stepX = dx > 0 ? 1 : -1;
  const stepY = dy > 0 ? 1 : -1;
  const deltaX = Math.abs(1 / dx);
  const deltaY = Math.abs(1 / dy);
  let nextX = dx > 0 ? (col + 1 - u) / dx : dx < 0 ? (col - u) / dx : Infinity;
  let nextY = dy > 0 ? (row + 1 - v) / dy : dy < 0 ? (row - v) / dy : Infinity;
  let t = 0;
  while (t * grid.resolution < max) {
    if (grid.isOccupiedCell(col, row)) return t * grid.resolution;
    if (nextX < nextY) {
      t = nextX;
      nextX += deltaX;
      col += stepX;
    } else {
      t = nextY;
      nextY += deltaY;
      row += stepY;
    }
  }
  return max;
}
