import { interpolatedQuantile } from '../util/percentile.js';
import { valuesOf } from './latency-stats.js';

/** One status update that arrived: when it was sent and when it was received [s]. */
export interface ReceivedUpdate {
  sentAt: number;
  receivedAt: number;
}

export interface SpreadFigures {
  mean_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** Sorts `values` in place (a typed array sorts numerically, many times faster than a comparator). */
function spread(values: Float64Array): SpreadFigures | null {
  if (!values.length) return null;
  values.sort();
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  const ms = (v: number) => +(v * 1000).toFixed(3);
  return { mean_ms: ms(sum / values.length), p99_ms: ms(interpolatedQuantile(values, 0.99)), max_ms: ms(values[values.length - 1]) };
}

/**
 * Age of information at a receiver, sampled every `step` from the first arrival to `end`: at each
 * sample t, t minus the send time of the newest update that had arrived by t. An update overtaken
 * by a newer one does not make the information younger.
 */
export function ageOfInformation(updates: readonly ReceivedUpdate[], step: number, end: number): SpreadFigures | null {
  const byArrival = [...updates].sort((a, b) => a.receivedAt - b.receivedAt);
  if (!byArrival.length) return null;
  let next = 0;
  let newest = -Infinity;
  const first = Math.ceil(byArrival[0].receivedAt / step - 1e-9);
  let count = 0;
  while ((first + count) * step <= end + 1e-9) count++;
  const ages = new Float64Array(count);
  for (let k = first; k < first + count; k++) {
    const t = k * step;
    while (next < byArrival.length && byArrival[next].receivedAt <= t + 1e-12) newest = Math.max(newest, byArrival[next++].sentAt);
    ages[k - first] = t - newest;
  }
  return spread(ages);
}

/** Time between consecutive arrivals [s]; null with fewer than two. */
export function interArrivalGaps(updates: readonly ReceivedUpdate[]): SpreadFigures | null {
  const times = valuesOf(updates, (u) => u.receivedAt).sort();
  return spread(times.length > 1 ? times.subarray(1).map((t, i) => t - times[i]) : new Float64Array(0));
}
