/**
 * Cars bucketed in square cells of the radio's reach, so that a transmission looks only at the cars
 * in the 3 x 3 cells around its sender instead of every car.
 */
export class SpatialIndex {
  private readonly cells = new Map<number, number[]>();
  private readonly cellOf: Int32Array;
  private readonly cellSize: number;

  constructor(
    cars: number,
    private readonly reach: number,
  ) {
    this.cellOf = new Int32Array(cars);
    this.cellSize = Math.max(reach, 1);
  }

  /** Re-buckets every car at these positions. */
  rebuild(x: Float64Array, y: Float64Array): void {
    for (const bucket of this.cells.values()) bucket.length = 0;
    for (let i = 0; i < this.cellOf.length; i++) {
      const key = this.key(Math.floor(x[i] / this.cellSize), Math.floor(y[i] / this.cellSize));
      this.cellOf[i] = key;
      let bucket = this.cells.get(key);
      if (!bucket) {
        bucket = [];
        this.cells.set(key, bucket);
      }
      bucket.push(i);
    }
  }

  /** Calls `visit` for every car other than `car` within the reach of `car`, with the distance. */
  forEachWithin(car: number, x: Float64Array, y: Float64Array, visit: (other: number, distance: number) => void): void {
    const cx = Math.floor(x[car] / this.cellSize);
    const cy = Math.floor(y[car] / this.cellSize);
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const bucket = this.cells.get(this.key(cx + dx, cy + dy));
        if (!bucket) continue;
        for (const other of bucket) {
          if (other === car) continue;
          const d = Math.hypot(x[other] - x[car], y[other] - y[car]);
          if (d <= this.reach) visit(other, d);
        }
      }
    }
  }

  private key(cx: number, cy: number): number {
    // cells within +-2^20 of the origin: about 10^6 km at a 1 m reach
    return (cx + 0x100000) * 0x200000 + (cy + 0x100000);
  }
}
