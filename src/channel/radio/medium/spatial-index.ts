/**
 * Cars bucketed in square cells of the radio's reach, so that a transmission looks only at the cars
 * in the 3 x 3 cells around its sender instead of every car.
 */
export class SpatialIndex {
  private readonly cells = new Map<number, number[]>();
  private readonly cellSize: number;
  /** The reach squared, a hair wider so that the exact test below decides every car at the edge. */
  private readonly reachSquaredBound: number;

  constructor(
    cars: number,
    private readonly reach: number,
  ) {
    this.cellSize = Math.max(reach, 1);
    this.reachSquaredBound = reach * reach * (1 + 1e-9);
    this.found = new Int32Array(cars);
    this.distances = new Float64Array(cars);
  }

  /** What the last `within` found: car indices and their distances, valid up to the count it returned. */
  readonly found: Int32Array;
  readonly distances: Float64Array;

  /** Re-buckets every car at these positions. */
  rebuild(x: Float64Array, y: Float64Array): void {
    for (const bucket of this.cells.values()) bucket.length = 0;
    for (let i = 0; i < x.length; i++) {
      const key = this.key(Math.floor(x[i] / this.cellSize), Math.floor(y[i] / this.cellSize));
      let bucket = this.cells.get(key);
      if (!bucket) {
        bucket = [];
        this.cells.set(key, bucket);
      }
      bucket.push(i);
    }
  }

  /**
   * Every car other than `car` within the reach of `car`, into `found` and `distances` (reused, so a
   * query allocates nothing); returns how many. The order is fixed (cell by cell, then by index), since
   * the caller's random draws follow it.
   */
  within(car: number, x: Float64Array, y: Float64Array): number {
    const cx = Math.floor(x[car] / this.cellSize);
    const cy = Math.floor(y[car] / this.cellSize);
    const ox = x[car];
    const oy = y[car];
    let count = 0;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const bucket = this.cells.get(this.key(cx + dx, cy + dy));
        if (!bucket) continue;
        for (let k = 0; k < bucket.length; k++) {
          const other = bucket[k];
          const ddx = x[other] - ox;
          const ddy = y[other] - oy;
          if (other === car || ddx * ddx + ddy * ddy > this.reachSquaredBound) continue;
          const d = Math.sqrt(ddx * ddx + ddy * ddy);
          if (d > this.reach) continue;
          this.found[count] = other;
          this.distances[count++] = d;
        }
      }
    }
    return count;
  }

  /** Calls `visit` for every car other than `car` within the reach of `car`, with the distance. */
  forEachWithin(car: number, x: Float64Array, y: Float64Array, visit: (other: number, distance: number) => void): void {
    const count = this.within(car, x, y);
    for (let k = 0; k < count; k++) visit(this.found[k], this.distances[k]);
  }

  private key(cx: number, cy: number): number {
    // cells within +-2^20 of the origin: about 10^6 km at a 1 m reach
    return (cx + 0x100000) * 0x200000 + (cy + 0x100000);
  }
}
