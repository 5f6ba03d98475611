import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';

/** What the map's walls do to one path: how many walls it crosses and how many metres it runs inside them. */
export interface Obstruction {
  cuts: number;
  metres: number;
}

/**
 * The map's walls on the path between two antennas, as the ns-3 engine reads them
 * (ns3-scripts/lib/map-obstacles.h): the segment is sampled every half cell; each run of wall samples
 * is one cut and adds its length to the metres inside walls. Cached per pair of cells, since cars
 * move a few centimetres per step.
 */
export class WallTracer {
  private readonly cache = new Map<string, Obstruction>();

  constructor(private readonly grid: OccupancyGrid) {}

  between(ax: number, ay: number, bx: number, by: number): Obstruction {
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
    return occupied[row * width + col] === 1;
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
