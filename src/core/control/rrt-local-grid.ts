import type { LaserScan } from './vehicle-context.js';

/**
 * A square occupancy grid in the car's frame (x forward, y left), centred on the car, built from
 * one scan: every beam end inside the square marks the cells within `inflation` of it occupied.
 * Cells nothing saw stay free: the planner trusts only what the lidar reports.
 */
export class LocalGrid {
  readonly cells: number; // per side
  readonly half: number; // [m] half the side
  readonly occupied: Uint8Array;

  constructor(
    readonly size: number,
    readonly resolution: number,
  ) {
    this.cells = Math.max(1, Math.round(size / resolution));
    this.half = (this.cells * resolution) / 2;
    this.occupied = new Uint8Array(this.cells * this.cells);
  }

  /** Clears the grid and marks the scan's beam ends, grown by `inflation` metres. */
  fill(scan: LaserScan, inflation: number): void {
    this.occupied.fill(0);
    const { cells, resolution, half } = this;
    const grow = Math.ceil(inflation / resolution);
    const disk: number[] = [];
    for (let dr = -grow; dr <= grow; dr++) {
      for (let dc = -grow; dc <= grow; dc++)
        if ((dr * dr + dc * dc) * resolution * resolution <= inflation * inflation + 1e-12) disk.push(dr, dc);
    }
    let lastCell = -1;
    for (let i = 0; i < scan.ranges.length; i++) {
      const r = scan.ranges[i];
      if (!(r > 0) || r >= scan.rangeMax) continue;
      const a = scan.angleMin + i * scan.angleIncrement;
      const col = Math.floor((r * Math.cos(a) + half) / resolution);
      const row = Math.floor((r * Math.sin(a) + half) / resolution);
      if (col < -grow || row < -grow || col >= cells + grow || row >= cells + grow) continue;
      const cell = row * (cells + 2 * grow + 1) + col;
      if (cell === lastCell) continue; // neighbouring beams mostly hit the same cell
      lastCell = cell;
      for (let k = 0; k < disk.length; k += 2) {
        const rr = row + disk[k];
        const cc = col + disk[k + 1];
        if (rr >= 0 && cc >= 0 && rr < cells && cc < cells) this.occupied[rr * cells + cc] = 1;
      }
    }
  }

  /** Frees the cells within `radius` of the car, so a car already close to a wall can still plan a way out. */
  clearAroundOrigin(radius: number): void {
    const { cells, resolution, half } = this;
    const reach = Math.ceil(radius / resolution) + 1;
    const centre = Math.floor(half / resolution);
    for (let row = centre - reach; row <= centre + reach; row++) {
      for (let col = centre - reach; col <= centre + reach; col++) {
        if (row < 0 || col < 0 || row >= cells || col >= cells) continue;
        const x = (col + 0.5) * resolution - half;
        const y = (row + 0.5) * resolution - half;
        if (x * x + y * y <= radius * radius) this.occupied[row * cells + col] = 0;
      }
    }
  }

  /** Whether a car-frame point is in an occupied cell; points off the grid count as occupied. */
  isOccupied(x: number, y: number): boolean {
    const col = Math.floor((x + this.half) / this.resolution);
    const row = Math.floor((y + this.half) / this.resolution);
    if (col < 0 || row < 0 || col >= this.cells || row >= this.cells) return true;
    return this.occupied[row * this.cells + col] !== 0;
  }

  /** Whether the straight segment between two car-frame points crosses no occupied cell. */
  segmentFree(x0: number, y0: number, x1: number, y1: number): boolean {
    const length = Math.hypot(x1 - x0, y1 - y0);
    const steps = Math.max(1, Math.ceil(length / (this.resolution / 2)));
    for (let k = 0; k <= steps; k++) {
      const f = k / steps;
      if (this.isOccupied(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f)) return false;
    }
    return true;
  }
}
