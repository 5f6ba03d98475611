import { type FrameOutcome, OutcomeTally, TALLY_BIN_M } from '../channel/outcome-tally.js';
import type { BinnedOutcomes } from '../measurement/binned-outcomes.js';
import { tableOfBinned } from '../measurement/binned-outcomes.js';
import type { DeliveryTable } from '../measurement/delivery-by-distance.js';
import { snakeCaseKeys } from '../util/snake-case.js';

/** The tally's distance bins reach this far [m]; whatever lies further (or has no distance) is counted in one last bin. */
export const FLEET_TALLY_MAX_M = 2000;

/**
 * A fleet run's V2V record (fleet-mode.ts): messages, bytes and (message, receiver) pairs sent, and
 * every outcome counted in the tally by distance, by the builtin radio itself or by the runtime.
 */
export class FleetV2v {
  readonly tally = new OutcomeTally(FLEET_TALLY_MAX_M);
  sent = 0;
  sentPairs = 0;
  bytes = 0;

  constructor(readonly reason: string) {}

  countSent(receivers: number, sizeBytes: number): void {
    this.sent++;
    this.sentPairs += receivers;
    this.bytes += sizeBytes;
  }
}

/** The tally in its 10 m bins up to FLEET_TALLY_MAX_M, and `beyond`: what lies further or has no distance (beyond the reach, queue drops). */
export function fleetBinned(tally: OutcomeTally): { binned: BinnedOutcomes; beyond: Record<string, number> } {
  const bins = Math.round(FLEET_TALLY_MAX_M / TALLY_BIN_M);
  const counts: Record<string, number[]> = {};
  const beyond: Record<string, number> = {};
  for (const outcome of tally.outcomes()) {
    counts[outcome] = Array.from({ length: bins }, (_, k) => tally.count(outcome, k * TALLY_BIN_M, (k + 1) * TALLY_BIN_M));
    beyond[outcome] = tally.count(outcome, FLEET_TALLY_MAX_M);
  }
  return { binned: { binWidth: TALLY_BIN_M, counts }, beyond };
}

/** summary.json's v2v block of a fleet run: LatencyFigures' counts from the tally, and the delivery table. */
export interface FleetV2vFigures {
  sent: number;
  sent_pairs: number;
  received: number;
  lost: number;
  in_flight_at_end: number;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  mean_ms: number | null;
  delivery_ratio: number | null;
  lost_by_reason: Record<string, number>;
  load: { frames_per_s: number; bytes_per_s: number };
  /** DeliveryTable (measurement/delivery-by-distance.ts) in 50 m bins to 500 m, keys in snake_case. */
  delivery_by_distance: unknown;
}

/** Latencies are the histogram's (10 us bins, each taken at its middle); the mean is exact. */
export function fleetV2vFigures(f: FleetV2v, end: number): FleetV2vFigures {
  const t = f.tally;
  const lostByReason: Record<string, number> = {};
  let lost = 0;
  for (const outcome of t.outcomes()) {
    if (outcome === 'delivered') continue;
    const n = t.count(outcome);
    lostByReason[outcome] = n;
    lost += n;
  }
  const received = t.count('delivered');
  // what the channel never decided (queued or on the air at the end) is in flight, as run-ended in normal runs
  const inFlight = Math.max(0, f.sentPairs - received - lost);
  if (inFlight) lostByReason['run-ended' satisfies FrameOutcome] = inFlight;
  const ms = (s: number | null) => (s === null ? null : +(s * 1000).toFixed(3));
  const perSecond = (v: number) => (end > 0 ? +(v / end).toFixed(3) : 0);
  return {
    sent: f.sent,
    sent_pairs: f.sentPairs,
    received,
    lost,
    in_flight_at_end: inFlight,
    p50_ms: ms(t.latencyQuantile(0.5)),
    p99_ms: ms(t.latencyQuantile(0.99)),
    max_ms: ms(t.latencyQuantile(1)),
    mean_ms: received ? ms(t.latencySumS / received) : null,
    delivery_ratio: received + lost ? +(received / (received + lost)).toFixed(6) : null,
    lost_by_reason: lostByReason,
    load: { frames_per_s: perSecond(f.sent), bytes_per_s: perSecond(f.bytes) },
    delivery_by_distance: snakeCaseKeys(fleetDeliveryTable(f.tally)),
  };
}

/** The delivery table of a fleet run: 50 m bins to 500 m, as `cavsim check channel` and v2v.csv's table by default. */
export const fleetDeliveryTable = (tally: OutcomeTally, bins?: { binWidth?: number; maxDistance?: number }): DeliveryTable =>
  tableOfBinned(fleetBinned(tally).binned, bins);
