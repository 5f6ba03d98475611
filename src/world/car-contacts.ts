import { type Footprint, footprintsOverlap } from '../core/physics/footprint.js';
import { BoxSweep } from '../util/box-sweep.js';

/**
 * The pairs of cars whose footprints overlap, in pair order (i, then each later j), as a test of
 * every pair finds them: footprints whose bounding boxes do not overlap cannot, so only the few
 * pairs a sweep over the boxes finds are tested. Reused step after step (it keeps its sort).
 */
export class CarContacts {
  private readonly sweep: BoxSweep;
  private readonly minX: Float64Array;
  private readonly maxX: Float64Array;
  private readonly minY: Float64Array;
  private readonly maxY: Float64Array;

  constructor(readonly n: number) {
    this.sweep = new BoxSweep(n);
    this.minX = new Float64Array(n);
    this.maxX = new Float64Array(n);
    this.minY = new Float64Array(n);
    this.maxY = new Float64Array(n);
  }

  /** Overlapping pairs [i, j], i < j, sorted; `skip(i, j)` leaves a pair untested. */
  find(footprints: readonly Footprint[], skip: (i: number, j: number) => boolean): [number, number][] {
    for (let i = 0; i < this.n; i++) {
      const f = footprints[i];
      this.minX[i] = Math.min(f[0], f[2], f[4], f[6]);
      this.maxX[i] = Math.max(f[0], f[2], f[4], f[6]);
      this.minY[i] = Math.min(f[1], f[3], f[5], f[7]);
      this.maxY[i] = Math.max(f[1], f[3], f[5], f[7]);
    }
    const found: [number, number][] = [];
    this.sweep.forEachOverlap(this.minX, this.maxX, this.minY, this.maxY, (i, j) => {
      if (!skip(i, j) && footprintsOverlap(footprints[i], footprints[j])) found.push([i, j]);
    });
    return found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }
}
