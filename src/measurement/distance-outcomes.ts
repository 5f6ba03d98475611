import type { BinnedOutcomes } from './binned-outcomes.js';

/** The bins a run with a v2v.csv counts its outcomes in for delivery-distance.csv [m] (the 50 m). */
export const RUN_DISTANCE_BIN_M = 50;

/**
 * Each (frame, receiver) outcome counted by the distance between the cars when the frame was sent,
 * as v2v.csv lists them: for delivery-distance.csv beside it. Rows of no computed distance are
 * counted apart. Pure.
 */
export class DistanceOutcomes {
  private readonly counts = new Map<string, number[]>();
  private readonly unknown = new Map<string, number>();

  constructor(readonly binWidth = RUN_DISTANCE_BIN_M) {}

  get empty(): boolean {
    return this.counts.size === 0 && this.unknown.size === 0;
  }

  add(outcome: string, distanceM: number | undefined): void {
    if (distanceM === undefined || !(distanceM >= 0)) {
      this.unknown.set(outcome, (this.unknown.get(outcome) ?? 0) + 1);
      return;
    }
    let bins = this.counts.get(outcome);
    if (!bins) this.counts.set(outcome, (bins = []));
    const k = Math.floor(distanceM / this.binWidth);
    while (bins.length <= k) bins.push(0);
    bins[k]++;
  }

  /** The counts in bins up to the furthest one with a frame, and those of no distance. */
  binned(): { binned: BinnedOutcomes; beyond: Record<string, number> } {
    const bins = Math.max(1, ...[...this.counts.values()].map((c) => c.length));
    const counts = Object.fromEntries(
      [...this.counts.entries()].map(([o, c]) => [o, [...c, ...new Array<number>(bins - c.length).fill(0)]]),
    );
    return { binned: { binWidth: this.binWidth, counts }, beyond: Object.fromEntries(this.unknown) };
  }
}
