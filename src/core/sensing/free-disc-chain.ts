const MAX_DISCS = 64;
const STRIDE = 4; // along, radius, born, expiry

/**
 * What the beams of one scan, marched in order, know is free: a chain of discs centred on the
 * beams, each found free by a march step (a cell's clearance) on beam `born`, at distance `along`
 * from the lidar. Linked discs overlap along the beam, so the chain covers the beam from the lidar
 * to the end of its last disc.
 *
 * On a later beam i the disc is re-centred at the same distance along beam i, which moves its
 * centre by at most (i − born)·along·shrink (shrink = 2·sin(increment/2)): the disc of radius
 * radius − (i − born)·along·shrink around the new centre lies within the old one, so is free too.
 * Each link thus holds up to a beam index (its expiry) known when the disc is added, and the
 * chain's valid part is the prefix of discs whose links all still hold: checking a beam costs
 * amortised O(1), not a walk along the chain. A radius may go negative; the chain still covers
 * up to the last disc's end, which then lies inside the earlier discs.
 */
export class FreeDiscChain {
  private readonly discs = new Float64Array(STRIDE * MAX_DISCS);
  private length = 0;

  /** shrink: an upper bound on 2·sin(angle between neighbouring beams / 2). */
  constructor(private readonly shrink: number) {}

  clear(): void {
    this.length = 0;
  }

  /** How far along beam i the chain proves free from the lidar [cells] (≤ 0: not at all). */
  reach(i: number): number {
    const d = this.discs;
    let n = this.length;
    while (n > 0 && d[STRIDE * (n - 1) + 3] < i) n--;
    this.length = n;
    if (n === 0) return 0;
    const j = STRIDE * (n - 1);
    const along = d[j];
    return along + d[j + 1] - (i - d[j + 2]) * along * this.shrink;
  }

  /** On beam i, the disc of `radius` around the point `along` from the lidar is free; link it if it overlaps the chain. */
  add(i: number, along: number, radius: number): void {
    const n = this.length;
    if (n === MAX_DISCS) return;
    const d = this.discs;
    // The chain starts at the lidar: a disc of radius 0 there.
    let prevAlong = 0;
    let prevRadius = 0;
    let prevExpiry = Infinity;
    if (n > 0) {
      const p = STRIDE * (n - 1);
      prevAlong = d[p];
      prevRadius = d[p + 1] - (i - d[p + 2]) * prevAlong * this.shrink;
      prevExpiry = d[p + 3];
    }
    const slack = prevRadius + radius - (along - prevAlong);
    if (!(slack >= 0)) return; // a gap
    // The slack shrinks by (along + prevAlong)·shrink a beam.
    const rate = (along + prevAlong) * this.shrink;
    const expiry = rate > 0 ? Math.min(prevExpiry, i + slack / rate) : prevExpiry;
    const j = STRIDE * n;
    d[j] = along;
    d[j + 1] = radius;
    d[j + 2] = i;
    d[j + 3] = expiry;
    this.length = n + 1;
  }
}
