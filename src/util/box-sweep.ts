/**
 * The pairs of axis-aligned boxes that overlap (touching counts), found by sorting the boxes on
 * their left edge and sweeping: a few tests per box when they are spread out (cars along a road)
 * instead of n(n-1)/2. A box with a NaN bound overlaps none. The order is kept between calls, so
 * for boxes that move a little each call the sort is nearly linear.
 */
export class BoxSweep {
  private readonly order: Int32Array;

  constructor(readonly n: number) {
    this.order = Int32Array.from({ length: n }, (_, i) => i);
  }

  /** Calls `visit(i, j)`, i < j, once for each two boxes that overlap, in no particular order. */
  forEachOverlap(
    minX: Float64Array,
    maxX: Float64Array,
    minY: Float64Array,
    maxY: Float64Array,
    visit: (i: number, j: number) => void,
  ): void {
    const o = this.order;
    const n = this.n;
    // NaN sorts last, as +Infinity
    const left = (i: number) => (Number.isNaN(minX[i]) ? Number.POSITIVE_INFINITY : minX[i]);
    for (let a = 1; a < n; a++) {
      const i = o[a];
      const key = left(i);
      let b = a - 1;
      while (b >= 0 && left(o[b]) > key) {
        o[b + 1] = o[b];
        b--;
      }
      o[b + 1] = i;
    }
    for (let a = 0; a < n; a++) {
      const i = o[a];
      if (!(minX[i] <= maxX[i] && minY[i] <= maxY[i])) continue;
      const right = maxX[i];
      for (let b = a + 1; b < n; b++) {
        const j = o[b];
        if (!(minX[j] <= right)) break;
        if (!(minX[j] <= maxX[j] && minY[j] <= maxY[j])) continue;
        if (minY[j] <= maxY[i] && minY[i] <= maxY[j]) visit(i < j ? i : j, i < j ? j : i);
      }
    }
  }
}
