import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';

/** What the map's walls do to one path: how many walls it crosses and how many metres it runs inside them. */
export interface Obstruction {
  cuts: number;
  metres: number;
}

const CLEAR: Obstruction = Object.freeze({ cuts: 0, metres: 0 });

/**
 * The map's walls on the path between two antennas, as the ns-3 engine reads them
 * (ns3-scripts/lib/map-obstacles.h): the segment is sampled every half cell; each run of wall samples
 * is one cut and adds its length to the metres inside walls. Cached per pair of cells, since cars
 * move a few centimetres per step.
 */
export class WallTracer {
  private readonly cache = new Map<string, Obstruction>();
  /** walls[r * (width + 1) + c]: wall cells in rows < r and columns < c (a summed-area table). */
  private readonly walls: Int32Array;
  /** The grid's geometry, copied out of it for the test every path takes. */
  private readonly originX: number;
  private readonly originY: number;
  private readonly resolution: number;
  private readonly width: number;
  private readonly height: number;

  constructor(private readonly grid: OccupancyGrid) {
    const { width, height, occupied } = grid;
    this.originX = grid.origin.x;
    this.originY = grid.origin.y;
    this.resolution = grid.resolution;
    this.width = width;
    this.height = height;
    this.walls = new Int32Array((width + 1) * (height + 1));
    for (let r = 0; r < height; r++) {
      let row = 0;
      for (let c = 0; c < width; c++) {
        row += occupied[r * width + c] !== 0 ? 1 : 0;
        this.walls[(r + 1) * (width + 1) + c + 1] = this.walls[r * (width + 1) + c + 1] + row;
      }
    }
  }

  /**
   * Most paths between cars on a road span a box that holds no wall cell (then neither does the path):
   * that test is written out here rather than in a method of its own, since a call that is not inlined
   * boxes every number it passes, and this runs per frame and receiver.
   */
  between(ax: number, ay: number, bx: number, by: number): Obstruction {
    const { originX, originY, resolution, width, height } = this;
    const c0 = Math.max(0, Math.floor(((ax < bx ? ax : bx) - originX) / resolution));
    const c1 = Math.min(width - 1, Math.floor(((ax < bx ? bx : ax) - originX) / resolution));
    const r0 = Math.max(0, Math.floor(((ay < by ? ay : by) - originY) / resolution));
    const r1 = Math.min(height - 1, Math.floor(((ay < by ? by : ay) - originY) / resolution));
    if (c0 > c1 || r0 > r1) return CLEAR;
    const w = width + 1;
    const walls = this.walls[(r1 + 1) * w + c1 + 1] - this.walls[r0 * w + c1 + 1] - this.walls[(r1 + 1) * w + c0] + this.walls[r0 * w + c0];
    return walls === 0 ? CLEAR : this.tracedOnce(ax, ay, bx, by);
  }

  /** A path whose box holds walls: traced once per pair of cells. */
  private tracedOnce(ax: number, ay: number, bx: number, by: number): Obstruction {
    const key = `${this.cell(ax, ay)}:${this.cell(bx, by)}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const o = this.trace(ax, ay, bx, by);
    this.cache.set(key, o);
    return o;
  }

  private cell(x: number, y: number): number {
    const { origin, resolution, width } = this.grid;
    return Math.floor((y - origin.y) / resolution) * (width + 1) + Math.floor((x - origin.x) / resolution);
  }

  private wallAt(x: number, y: number): boolean {
    const { origin, resolution, width, height, occupied } = this.grid;
    const col = Math.floor((x - origin.x) / resolution);
    const row = Math.floor((y - origin.y) / resolution);
    if (col < 0 || row < 0 || col >= width || row >= height) return false;
    return occupied[row * width + col] !== 0;
  }

  private trace(ax: number, ay: number, bx: number, by: number): Obstruction {
    const length = Math.hypot(bx - ax, by - ay);
    const samples = Math.max(1, Math.ceil(length / (this.grid.resolution / 2)));
    const step = length / samples;
    const o = { cuts: 0, metres: 0 };
    let inside = false;
    for (let i = 0; i <= samples; i++) {
      const f = i / samples;
      const wall = this.wallAt(ax + (bx - ax) * f, ay + (by - ay) * f);
      if (wall && !inside) o.cuts++;
      if (wall && i > 0) o.metres += step;
      inside = wall;
    }
    return o;
  }
}
