import { OccupancyGrid } from '../map/occupancy-grid.js';
import { type FootprintCorners, packCorners } from '../map/wall-collision.js';
import { GaussianNoise } from './gaussian-noise.js';
import { type LidarMap, prepareLidarMap } from './lidar-map.js';
import { WallMarch } from './wall-march.js';

export interface Pose2D {
  x: number;
  y: number;
  yaw: number;
}

export interface LidarOptions {
  beams?: number;
  fov?: number; // [rad], centred on the heading
  rangeMax?: number; // [m]
  noiseStd?: number; // [m], 0 for noise-free scans
  seed?: number;
}

/**
 * f1tenth_gym's scan defaults (RaceCar / ScanSimulator2D at commit 4fdb9c7): 1080 beams over
 * 4.7 rad, 30 m range, N(0, 0.01 m) noise, seed 12345. The gym puts the lidar lidar_dist = 0 m
 * ahead of the car's reference point, i.e. the scan pose is the car's (x, y, yaw).
 */
export const F1TENTH_LIDAR_DEFAULTS = Object.freeze({ beams: 1080, fov: 4.7, rangeMax: 30, noiseStd: 0.01, seed: 12345 });

const NO_FOOTPRINTS: readonly FootprintCorners[] = Object.freeze([]);
/** Scans with at least this many other cars first skip the cars walls hide (fleets: most of them). */
const CULL_FROM_CARS = 4;
/** Beams per sector of the walls' longest ranges. */
const SECTOR_BEAMS = 16;

/**
 * Simulated 2-D lidar. Beam i points at yaw + angleMin + i·angleIncrement (angleMin = -fov/2,
 * angleIncrement = fov/(beams-1), as in the gym).
 *
 * Walls (WallMarch): like the gym's trace_ray, a ray advances by a distance-transform clearance,
 * but a conservative one (the distance from the cell to the nearest occupied cell, never entering
 * an obstacle), combined with run-length steps: a ray that mostly moves along x skips to where it
 * leaves the current row, or stops exactly where the row's free run ends (likewise columns for
 * rays along y). The range is thus the exact distance to the first occupied cell, where the gym
 * may overshoot by up to a cell. Beams are marched in order and each starts where a chain of
 * discs that earlier beams' steps proved free stops covering it, which saves over half the steps.
 * Other cars: exact ray/edge intersection with each footprint over the beams its corners subtend
 * (the gym's ray_cast). Noise is added last, to every beam, then clamped to [0, rangeMax]; the gym
 * adds it before the other cars and does not clamp.
 */
export class Lidar {
  readonly beams: number;
  readonly fov: number;
  readonly rangeMax: number;
  readonly noiseStd: number;
  readonly angleMin: number;
  readonly angleIncrement: number;
  readonly map: LidarMap;
  private readonly beamCos: Float64Array;
  private readonly beamSin: Float64Array;
  private readonly noise: GaussianNoise;
  private readonly corners = new Float64Array(8);
  private readonly walls: WallMarch;
  /** Per scan with many cars: the longest wall range of each run of SECTOR_BEAMS beams. */
  private sectorMax = new Float32Array(0);
  private sectorsKnown = false;

  /** Pass a LidarMap (prepareLidarMap) to share the precomputed tables between cars. */
  constructor(map: OccupancyGrid | LidarMap, opts: LidarOptions = {}) {
    const o = { ...F1TENTH_LIDAR_DEFAULTS, ...definedOnly(opts) };
    if (!Number.isInteger(o.beams) || o.beams < 2) throw new RangeError(`beams must be an integer >= 2, got ${o.beams}`);
    if (!(o.fov > 0 && o.fov <= 2 * Math.PI)) throw new RangeError(`fov must be in (0, 2π], got ${o.fov}`);
    if (!(o.noiseStd >= 0)) throw new RangeError(`noiseStd must be >= 0, got ${o.noiseStd}`);
    this.map = map instanceof OccupancyGrid ? prepareLidarMap(map) : map;
    // Every ray under 60000 cells, as the lidar has always required (once for its 16-bit runs).
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
    this.walls = new WallMarch(this.map, this.beamCos, this.beamSin, this.angleIncrement);
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
    this.sectorsKnown = otherFootprints.length >= CULL_FROM_CARS && this.measureSectors(ranges);
    for (let k = 0; k < otherFootprints.length; k++) this.castOnFootprint(pose, otherFootprints[k], ranges);
    if (this.noiseStd > 0) this.noise.addClamped(ranges, n, this.noiseStd, this.rangeMax);
    return ranges;
  }

  private marchWalls(pose: Pose2D, ranges: Float32Array): void {
    const grid = this.map.grid;
    // Padded-grid coordinates in cells.
    const u0 = grid.gridX(pose.x, pose.y) + 1;
    const v0 = grid.gridY(pose.x, pose.y) + 1;
    if (!(u0 >= 1 && v0 >= 1 && u0 < grid.width + 1 && v0 < grid.height + 1)) {
      ranges.fill(0, 0, this.beams); // the lidar is off the map, i.e. inside a wall
      return;
    }
    this.walls.scan(u0, v0, pose.yaw - grid.origin.yaw, this.rangeMax, ranges);
  }

  private castOnFootprint(pose: Pose2D, footprint: FootprintCorners, ranges: Float32Array): void {
    const c = packCorners(footprint, this.corners);
    const ox = pose.x;
    const oy = pose.y;
    // No hit can be nearer than the footprint's circumscribed circle.
    const cx = (c[0] + c[2] + c[4] + c[6]) / 4;
    const cy = (c[1] + c[3] + c[5] + c[7]) / 4;
    let radius = 0;
    for (let k = 0; k < 4; k++) radius = Math.max(radius, Math.hypot(c[2 * k] - cx, c[2 * k + 1] - cy));
    const distance = Math.hypot(cx - ox, cy - oy);
    const nearest = distance - radius;
    if (nearest > this.rangeMax + 1e-3) return; // no beam reaches it (the margin covers ranges rounded to float32)
    if (this.sectorsKnown && this.hiddenByWalls(pose, cx, cy, radius, distance, nearest)) return;
    // Beams that can reach the footprint: those between its extreme corner bearings.
    let lo = Infinity;
    let hi = -Infinity;
    for (let k = 0; k < 4; k++) {
      let a = Math.atan2(c[2 * k + 1] - oy, c[2 * k] - ox) - pose.yaw;
      a -= 2 * Math.PI * Math.round(a / (2 * Math.PI));
      if (a < lo) lo = a;
      if (a > hi) hi = a;
    }
    // A convex shape not around the lidar subtends less than π; more means it straddles ±π, or
    // holds the lidar. Straddling: its bearings measured from one corner's give the true span.
    if (hi - lo >= Math.PI) {
      const a0 = Math.atan2(c[1] - oy, c[0] - ox) - pose.yaw;
      lo = Infinity;
      hi = -Infinity;
      for (let k = 0; k < 4; k++) {
        let a = Math.atan2(c[2 * k + 1] - oy, c[2 * k] - ox) - pose.yaw - a0;
        a -= 2 * Math.PI * Math.round(a / (2 * Math.PI));
        if (a < lo) lo = a;
        if (a > hi) hi = a;
      }
      if (hi - lo >= Math.PI) {
        this.castOnBeams(pose, c, nearest, 0, this.beams - 1, ranges);
        return;
      }
      lo += a0;
      hi += a0;
      for (const turn of [-2 * Math.PI, 2 * Math.PI]) this.castOnSpan(pose, c, nearest, lo + turn, hi + turn, ranges);
    }
    this.castOnSpan(pose, c, nearest, lo, hi, ranges);
  }

  /**
   * The longest wall range in each run of SECTOR_BEAMS beams. Cars only shorten ranges, so these
   * stay upper bounds while the cars are cast. False when the scan has no beam.
   */
  private measureSectors(ranges: Float32Array): boolean {
    const n = this.beams;
    const sectors = Math.ceil(n / SECTOR_BEAMS);
    if (this.sectorMax.length < sectors) this.sectorMax = new Float32Array(sectors);
    for (let k = 0; k < sectors; k++) {
      let longest = 0;
      const end = Math.min(n, (k + 1) * SECTOR_BEAMS);
      for (let i = k * SECTOR_BEAMS; i < end; i++) if (ranges[i] > longest) longest = ranges[i];
      this.sectorMax[k] = longest;
    }
    return n > 0;
  }

  /**
   * Whether every beam that could reach the footprint already ends nearer than its circumscribed
   * circle: the beams castOnBeams would skip one by one. The circle's bearings (centre bearing
   * plus or minus asin(radius / distance), widened by a beam each side) hold the corners'.
   */
  private hiddenByWalls(pose: Pose2D, cx: number, cy: number, radius: number, distance: number, nearest: number): boolean {
    if (!(distance > radius * (1 + 1e-9))) return false; // the lidar is inside the circle
    let bearing = Math.atan2(cy - pose.y, cx - pose.x) - pose.yaw;
    bearing -= 2 * Math.PI * Math.round(bearing / (2 * Math.PI));
    const half = Math.asin(Math.min(1, radius / distance)) + 1e-9;
    const lo = bearing - half;
    const hi = bearing + half;
    if (lo <= -Math.PI || hi >= Math.PI) return false; // straddles ±π: the plain path handles it
    const first = Math.max(0, Math.floor((lo - this.angleMin) / this.angleIncrement) - 1);
    const last = Math.min(this.beams - 1, Math.ceil((hi - this.angleMin) / this.angleIncrement) + 1);
    if (first > last) return true; // outside the field of view
    for (let k = Math.floor(first / SECTOR_BEAMS); k <= Math.floor(last / SECTOR_BEAMS); k++) {
      if (this.sectorMax[k] > nearest) return false;
    }
    return true;
  }

  /** The beams whose bearings (from the heading) lie in [lo, hi]. */
  private castOnSpan(pose: Pose2D, c: Float64Array, nearest: number, lo: number, hi: number, ranges: Float32Array): void {
    const first = Math.max(0, Math.ceil((lo - this.angleMin) / this.angleIncrement - 1e-9));
    const last = Math.min(this.beams - 1, Math.floor((hi - this.angleMin) / this.angleIncrement + 1e-9));
    if (first <= last) this.castOnBeams(pose, c, nearest, first, last, ranges);
  }

  private castOnBeams(pose: Pose2D, c: Float64Array, nearest: number, first: number, last: number, ranges: Float32Array): void {
    const ox = pose.x;
    const oy = pose.y;
    const ch = Math.cos(pose.yaw);
    const sh = Math.sin(pose.yaw);
    for (let i = first; i <= last; i++) {
      let best = ranges[i];
      if (best <= nearest) continue; // something nearer already hides the footprint from this beam
      const rx = ch * this.beamCos[i] - sh * this.beamSin[i];
      const ry = sh * this.beamCos[i] + ch * this.beamSin[i];
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
