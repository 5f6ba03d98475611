import { interpolatedQuantile } from '../util/percentile.js';
import type { V2VReceipt } from './receipt-log.js';

export interface LatencySummary {
  count: number;
  lost: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
}

/** A message a sender expects to arrive: one per (id, receiver); a broadcast expands to each peer. */
export interface ExpectedDelivery {
  id: string;
  to: string;
}

/**
 * Latency of what arrived and loss of what did not. `expected` lists every (id, receiver) that was
 * sent; when omitted, loss is 0 by construction and only latency is summarised.
 */
export function summariseLatency(received: readonly Pick<V2VReceipt, 'id' | 'to' | 'latency_ms'>[], expected?: readonly ExpectedDelivery[]): LatencySummary {
  const key = (id: string, to: string) => `${to}\u0000${id}`;
  const seen = new Map<string, number>();
  for (const r of received) if (!seen.has(key(r.id, r.to))) seen.set(key(r.id, r.to), r.latency_ms);
  const lost = expected ? expected.filter((e) => !seen.has(key(e.id, e.to))).length : 0;
  const latencies = [...seen.values()].sort((a, b) => a - b);
  if (latencies.length === 0) return { count: 0, lost, p50_ms: NaN, p99_ms: NaN, max_ms: NaN, mean_ms: NaN };
  return {
    count: latencies.length,
    lost,
    p50_ms: interpolatedQuantile(latencies, 0.5),
    p99_ms: interpolatedQuantile(latencies, 0.99),
    max_ms: latencies[latencies.length - 1],
    mean_ms: latencies.reduce((s, x) => s + x, 0) / latencies.length,
  };
}
