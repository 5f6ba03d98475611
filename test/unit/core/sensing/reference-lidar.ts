import { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { type FootprintCorners, packCorners } from '../../../../src/core/map/wall-collision.js';
import { GaussianNoise } from '../../../../src/core/sensing/gaussian-noise.js';
import { F1TENTH_LIDAR_DEFAULTS, type LidarOptions, type Pose2D } from '../../../../src/core/sensing/lidar.js';
import type { LidarMap } from '../../../../src/core/sensing/lidar-map.js';
import { type ReferenceTables, referenceTables } from './reference-lidar-tables.js';

// Nudge past a cell boundary so the next lookup lands in the next cell [cells].
const CELL_EXIT_NUDGE = 1e-6;
// Avoids Infinity·0 = NaN for axis-parallel beams.
const HUGE = 1e30;
const NO_FOOTPRINTS: readonly FootprintCorners[] = Object.freeze([]);

/**
 * The lidar as it was before the scan was made faster (commit d061e35), kept to test the new one
 * against on random poses. Simulated 2-D lidar. Beam i points at yaw + angleMin + i·angleIncrement (angleMin = -fov/2,
 * angleIncrement = fov/(beams-1), as in the gym).
 *
 * Walls: like the gym's trace_ray, a ray advances by the distance-transform clearance, but made
 * conservative (centre distance − √2 cells, never entering an obstacle) and combined with
 * run-length steps: a ray that mostly moves along x skips to where it leaves the current row, or
 * stops exactly where the row's free run ends (likewise columns for rays along y). The range is
 * thus the exact distance to the first occupied cell, where the gym may overshoot by up to a cell.
 * Other cars: exact ray/edge intersection with each footprint over the beams its corners subtend
 * (the gym's ray_cast). Noise is added last, to every beam, then clamped to [0, rangeMax]; the gym
 * adds it before the other cars and does not clamp.
 */
export class ReferenceLidar {
  readonly beams: number;
  readonly fov: number;
  readonly rangeMax: number;
  readonly noiseStd: number;
  readonly angleMin: number;
  readonly angleIncrement: number;
  readonly map: ReferenceTables;
  private readonly beamCos: Float64Array;
  private readonly beamSin: Float64Array;
  private readonly noise: GaussianNoise;
  private readonly corners = new Float64Array(8);

  /** Takes the grid (and distance field) of a LidarMap and builds its own tables, as they were then. */
  constructor(map: OccupancyGrid | LidarMap, opts: LidarOptions = {}) {
    const o = { ...F1TENTH_LIDAR_DEFAULTS, ...definedOnly(opts) };
    if (!Number.isInteger(o.beams) || o.beams < 2) throw new RangeError(`beams must be an integer >= 2, got ${o.beams}`);
    if (!(o.fov > 0 && o.fov <= 2 * Math.PI)) throw new RangeError(`fov must be in (0, 2π], got ${o.fov}`);
    if (!(o.noiseStd >= 0)) throw new RangeError(`noiseStd must be >= 0, got ${o.noiseStd}`);
    this.map = referenceTables(map instanceof OccupancyGrid ? { grid: map } : map);
    // Row/column runs are stored as 16-bit counts; keep every ray shorter than that.
    if (!(o.rangeMax > 0 && o.rangeMax / this.map.grid.resolution < 60000)) {
      throw new RangeError(`rangeMax must be > 0 and under 60000 cells, got ${o.rangeMax}`);
    }
    this.beams = o.beams;
    this.fov = o.fov;
    this.rangeMax = o.rangeMax;
    this.noiseStd = o.noiseStd;
    this.angleMin = -o.fov / 2;
    this.angleIncrement = o.fov / (o.beams - 1);
    this.noise = new GaussianNoise(o.seed);
    this.beamCos = new Float64Array(o.beams);
    this.beamSin = new Float64Array(o.beams);
    for (let i = 0; i < o.beams; i++) {
      const a = this.angleMin + i * this.angleIncrement;
      this.beamCos[i] = Math.cos(a);
      this.beamSin[i] = Math.sin(a);
    }
  }

  /** Restarts the noise sequence (as the gym does on reset). */
  reseed(seed: number): void {
    this.noise.reseed(seed);
  }

  /** Ranges in metres, one per beam, written into `out` when given (no allocation then). */
  scan(pose: Pose2D, otherFootprints: readonly FootprintCorners[] = NO_FOOTPRINTS, out?: Float32Array): Float32Array {
    const n = this.beams;
    const ranges = out ?? new Float32Array(n);
    if (ranges.length < n) throw new RangeError(`out has ${ranges.length} slots for ${n} beams`);
    this.marchWalls(pose, ranges);
    for (let k = 0; k < otherFootprints.length; k++) this.castOnFootprint(pose, otherFootprints[k], ranges);
    if (this.noiseStd > 0) {
      const std = this.noiseStd;
      const max = this.rangeMax;
      for (let i = 0; i < n; i++) {
        const r = ranges[i] + std * this.noise.normal();
        ranges[i] = r < 0 ? 0 : r > max ? max : r;
      }
    }
    return ranges;
  }

  private marchWalls(pose: Pose2D, ranges: Float32Array): void {
    const { grid, clearance, paddedWidth: pw } = this.map;
    const resolution = grid.resolution;
    // Padded-grid coordinates in cells.
    const u0 = grid.gridX(pose.x, pose.y) + 1;
    const v0 = grid.gridY(pose.x, pose.y) + 1;
    if (!(u0 >= 1 && v0 >= 1 && u0 < grid.width + 1 && v0 < grid.height + 1)) {
      ranges.fill(0, 0, this.beams); // the lidar is off the map, i.e. inside a wall
      return;
    }
    const headingInGrid = pose.yaw - grid.origin.yaw;
    const ch = Math.cos(headingInGrid);
    const sh = Math.sin(headingInGrid);
    const maxT = this.rangeMax / resolution;

    for (let i = 0; i < this.beams; i++) {
      const dx = ch * this.beamCos[i] - sh * this.beamSin[i];
      const dy = sh * this.beamCos[i] + ch * this.beamSin[i];
      const invDx = dx === 0 ? HUGE : 1 / dx;
      const invDy = dy === 0 ? HUGE : 1 / dy;
      // Cell boundary ahead in x is col + offX; likewise y.
      const offX = dx < 0 ? 0 : 1;
      const offY = dy < 0 ? 0 : 1;
      let t = 0; // distance along the ray [cells]
      if (Math.abs(dx) >= Math.abs(dy)) {
        const run = dx > 0 ? this.map.runRight : this.map.runLeft;
        const sign = dx > 0 ? 1 : -1;
        for (;;) {
          const u = u0 + dx * t;
          const v = v0 + dy * t;
          const col = u | 0;
          const row = v | 0;
          const k = row * pw + col;
          const safe = clearance[k];
          if (safe < 0) break;
          const leaveRow = (row + offY - v) * invDy;
          const hitInRow = (col + offX + sign * (run[k] - 1) - u) * invDx;
          if (hitInRow <= leaveRow) {
            t += hitInRow;
            break;
          }
          const byRow = leaveRow + CELL_EXIT_NUDGE;
          t += byRow > safe ? byRow : safe;
          if (t >= maxT) break;
        }
      } else {
        const run = dy > 0 ? this.map.runUp : this.map.runDown;
        const sign = dy > 0 ? 1 : -1;
        for (;;) {
          const u = u0 + dx * t;
          const v = v0 + dy * t;
          const col = u | 0;
          const row = v | 0;
          const k = row * pw + col;
          const safe = clearance[k];
          if (safe < 0) break;
          const leaveCol = (col + offX - u) * invDx;
          const hitInCol = (row + offY + sign * (run[k] - 1) - v) * invDy;
          if (hitInCol <= leaveCol) {
            t += hitInCol;
            break;
          }
          const byCol = leaveCol + CELL_EXIT_NUDGE;
          t += byCol > safe ? byCol : safe;
          if (t >= maxT) break;
        }
      }
      ranges[i] = (t < maxT ? t : maxT) * resolution;
    }
  }

  private castOnFootprint(pose: Pose2D, footprint: FootprintCorners, ranges: Float32Array): void {
    const c = packCorners(footprint, this.corners);
    const ox = pose.x;
    const oy = pose.y;
    // Beams that can reach the footprint: those between its extreme corner bearings.
    let lo = Infinity;
    let hi = -Infinity;
    for (let k = 0; k < 4; k++) {
      let a = Math.atan2(c[2 * k + 1] - oy, c[2 * k] - ox) - pose.yaw;
      a -= 2 * Math.PI * Math.round(a / (2 * Math.PI));
      if (a < lo) lo = a;
      if (a > hi) hi = a;
    }
    let first = 0;
    let last = this.beams - 1;
    // A convex shape not around the lidar subtends less than π; more means it straddles ±π.
    if (hi - lo < Math.PI) {
      first = Math.max(0, Math.ceil((lo - this.angleMin) / this.angleIncrement - 1e-9));
      last = Math.min(this.beams - 1, Math.floor((hi - this.angleMin) / this.angleIncrement + 1e-9));
    }
    const ch = Math.cos(pose.yaw);
    const sh = Math.sin(pose.yaw);
    for (let i = first; i <= last; i++) {
      const rx = ch * this.beamCos[i] - sh * this.beamSin[i];
      const ry = sh * this.beamCos[i] + ch * this.beamSin[i];
      let best = ranges[i];
      for (let k = 0; k < 4; k++) {
        const ax = c[2 * k];
        const ay = c[2 * k + 1];
        const next = 2 * ((k + 1) & 3);
        const ex = c[next] - ax;
        const ey = c[next + 1] - ay;
        const denom = rx * ey - ry * ex;
        if (denom === 0) continue; // parallel edge: the adjacent edges give the hit
        const wx = ax - ox;
        const wy = ay - oy;
        const t = (wx * ey - wy * ex) / denom;
        const s = (wx * ry - wy * rx) / denom;
        if (t >= 0 && s >= 0 && s <= 1 && t < best) best = t;
      }
      ranges[i] = best;
    }
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
