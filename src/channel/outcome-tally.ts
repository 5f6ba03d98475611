import { LOSS_REASONS, type LossReason } from './frames.js';

/**
 * `malformed`: the frame reached its receiver, whose gate dropped it as no standard message
 * (core/v2x/facilities/message-gate.ts); counted apart from the channel's own losses.
 */
export type FrameOutcome = 'delivered' | LossReason | 'malformed';

const OUTCOMES: readonly FrameOutcome[] = ['delivered', ...LOSS_REASONS, 'malformed'];
/** Distance bins of the tally [m]. */
export const TALLY_BIN_M = 10;
/** Latency bins of the tally [s], up to LATENCY_BINS of them (longer ones count in the last). */
const LATENCY_BIN_S = 1e-5;
const LATENCY_BINS = 100_000;

/**
 * What became of every frame at every receiver, counted instead of listed: for fleets, where one
 * record per frame and receiver costs more than the radio itself. Counts per outcome and 10 m of
 * distance, a latency histogram of the deliveries (10 us bins), and the receivers a frame could not
 * reach at all (beyond the radio's reach, lost `below-sensitivity`, distance not computed).
 */
export class OutcomeTally {
  readonly bins: number;
  /** counts[outcome * bins + bin] */
  private readonly counts: Float64Array;
  private readonly latency = new Uint32Array(LATENCY_BINS);
  beyondReach = 0;
  delivered = 0;
  latencySumS = 0;

  constructor(readonly maxDistanceM: number) {
    this.bins = Math.ceil(maxDistanceM / TALLY_BIN_M) + 1;
    this.counts = new Float64Array(OUTCOMES.length * this.bins);
  }

  add(outcome: FrameOutcome, distanceM: number, latencyS: number): void {
    const bin = Math.min(this.bins - 1, Math.floor(distanceM / TALLY_BIN_M));
    this.counts[OUTCOMES.indexOf(outcome) * this.bins + bin]++;
    if (outcome !== 'delivered') return;
    this.delivered++;
    this.latencySumS += latencyS;
    this.latency[Math.min(LATENCY_BINS - 1, Math.floor(latencyS / LATENCY_BIN_S))]++;
  }

  addBeyondReach(receivers: number): void {
    this.beyondReach += receivers;
  }

  /** How many (frame, receiver) pairs ended with `outcome`, within [fromM, toM) of the sender. */
  count(outcome: FrameOutcome, fromM = 0, toM = Number.POSITIVE_INFINITY): number {
    const k = OUTCOMES.indexOf(outcome);
    let n = 0;
    for (let b = 0; b < this.bins; b++) {
      const start = b * TALLY_BIN_M;
      if (start >= fromM && start < toM) n += this.counts[k * this.bins + b];
    }
    return n + (outcome === 'below-sensitivity' && toM === Number.POSITIVE_INFINITY ? this.beyondReach : 0);
  }

  /** Outcomes seen, in frames.ts's order. */
  outcomes(): FrameOutcome[] {
    return OUTCOMES.filter((o) => this.count(o) > 0);
  }

  /** The latency [s] at quantile q (0..1) of the deliveries, to the histogram's 10 us; null without any. */
  latencyQuantile(q: number): number | null {
    if (!this.delivered) return null;
    const rank = Math.max(1, Math.ceil(q * this.delivered));
    let seen = 0;
    for (let i = 0; i < LATENCY_BINS; i++) {
      seen += this.latency[i];
      if (seen >= rank) return (i + 0.5) * LATENCY_BIN_S;
    }
    return null;
  }
}
