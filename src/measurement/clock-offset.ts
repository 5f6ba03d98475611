import { percentileOfSorted } from '../util/percentile.js';

/**
 * One clock-sync exchange, NTP's four timestamps [epoch ns]: t1 the simulator sent the probe, t2 the
 * device received it, t3 the device answered, t4 the simulator received the answer. t1 and t4 are
 * on the simulator's clock, t2 and t3 on the device's.
 */
export interface SyncSample {
  t1: bigint;
  t2: bigint;
  t3: bigint;
  t4: bigint;
}

/** Device clock minus simulator clock, and the round trip without the device's own time [ns]. */
export interface OffsetEstimate {
  offsetNs: number;
  rttNs: number;
}

/** NTP's offset ((t2 - t1) + (t3 - t4)) / 2 and delay (t4 - t1) - (t3 - t2); exact when the two legs take as long. */
export function offsetOf(s: SyncSample): OffsetEstimate {
  return { offsetNs: Number(s.t2 - s.t1 + (s.t3 - s.t4)) / 2, rttNs: Number(s.t4 - s.t1 - (s.t3 - s.t2)) };
}

/** An exchange whose legs differ most errs by half the round trip: the estimate is the recent one with the shortest. */
const WINDOW = 8;

export interface ClockOffsetFigures {
  samples: number;
  /** The estimate at the end of the run, and the largest (in magnitude) the run had [ms]. */
  offset_ms: number | null;
  offset_max_abs_ms: number | null;
  /** The largest |offset| less half its round trip: how far off the clock certainly was at some point [ms]. */
  offset_certain_ms: number | null;
  rtt_p50_ms: number | null;
  rtt_max_ms: number | null;
}

/** NTP's clock filter, simplified: of the last few exchanges, the one with the shortest round trip. */
export class ClockOffsetEstimator {
  private readonly recent: OffsetEstimate[] = [];
  private readonly rtts: number[] = [];
  private maxAbsNs?: number;
  private certainNs?: number;
  current?: OffsetEstimate;

  add(sample: SyncSample): OffsetEstimate | undefined {
    const e = offsetOf(sample);
    // A negative round trip means the device's clock stepped during the exchange: it tells nothing.
    if (e.rttNs < 0) return this.current;
    this.rtts.push(e.rttNs);
    this.recent.push(e);
    if (this.recent.length > WINDOW) this.recent.shift();
    this.current = this.recent.reduce((best, x) => (x.rttNs < best.rttNs ? x : best));
    const abs = Math.abs(this.current.offsetNs);
    if (this.maxAbsNs === undefined || abs > this.maxAbsNs) this.maxAbsNs = abs;
    const certain = Math.max(0, abs - this.current.rttNs / 2);
    if (this.certainNs === undefined || certain > this.certainNs) this.certainNs = certain;
    return this.current;
  }

  figures(): ClockOffsetFigures {
    const sorted = [...this.rtts].sort((a, b) => a - b);
    const ms = (ns: number | undefined) => (ns === undefined ? null : round3(ns / 1e6));
    return {
      samples: this.rtts.length,
      offset_ms: ms(this.current?.offsetNs),
      offset_max_abs_ms: ms(this.maxAbsNs),
      offset_certain_ms: ms(this.certainNs),
      rtt_p50_ms: ms(percentileOfSorted(sorted, 50)),
      rtt_max_ms: ms(sorted.at(-1)),
    };
  }
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
