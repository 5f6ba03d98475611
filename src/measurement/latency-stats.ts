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

/** The first of each (id, receiver), in order: emulation can report one frame at one receiver twice. */
export function firstPerReceiver<R extends { id: string; to: string }>(items: readonly R[]): R[] {
  // nested by receiver: ids are the same string objects every time, so no key is built per item
  const seen = new Map<string, Set<string>>();
  const first: R[] = [];
  for (const r of items) {
    let ids = seen.get(r.to);
    if (!ids) seen.set(r.to, (ids = new Set()));
    if (ids.has(r.id)) continue;
    ids.add(r.id);
    first.push(r);
  }
  return first;
}

/** `value` of each item, as a typed array (a plain loop: Float64Array.from with a mapping function is ~10x slower). */
export function valuesOf<R>(items: readonly R[], value: (item: R) => number): Float64Array {
  const out = new Float64Array(items.length);
  for (let i = 0; i < items.length; i++) out[i] = value(items[i]);
  return out;
}

/** Percentiles, max and mean of latencies [ms]; `latencies` is sorted in place. */
export function latencySummary(latencies: Float64Array, lost = 0): LatencySummary {
  latencies.sort();
  if (latencies.length === 0) return { count: 0, lost, p50_ms: NaN, p99_ms: NaN, max_ms: NaN, mean_ms: NaN };
  let sum = 0;
  for (let i = 0; i < latencies.length; i++) sum += latencies[i];
  return {
    count: latencies.length,
    lost,
    p50_ms: interpolatedQuantile(latencies, 0.5),
    p99_ms: interpolatedQuantile(latencies, 0.99),
    max_ms: latencies[latencies.length - 1],
    mean_ms: sum / latencies.length,
  };
}

/**
 * Latency of what arrived and loss of what did not. `expected` lists every (id, receiver) that was
 * sent; when omitted, loss is 0 by construction and only latency is summarised.
 */
export function summariseLatency(
  received: readonly Pick<V2VReceipt, 'id' | 'to' | 'latency_ms'>[],
  expected?: readonly ExpectedDelivery[],
): LatencySummary {
  const first = firstPerReceiver(received);
  let lost = 0;
  if (expected) {
    const arrived = new Set(first.map((r) => `${r.to}\u0000${r.id}`));
    lost = expected.filter((e) => !arrived.has(`${e.to}\u0000${e.id}`)).length;
  }
  return latencySummary(
    valuesOf(first, (r) => r.latency_ms),
    lost,
  );
}
