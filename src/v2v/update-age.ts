import { interpolatedQuantile } from '../util/percentile.js';

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

function spread(values: number[]): SpreadFigures | null {
  if (!values.length) return null;
  values.sort((a, b) => a - b);
  const ms = (v: number) => +(v * 1000).toFixed(3);
  return { mean_ms: ms(values.reduce((s, v) => s + v, 0) / values.length), p99_ms: ms(interpolatedQuantile(values, 0.99)), max_ms: ms(values[values.length - 1]) };
}

/**
 * Age of information at a receiver, sampled every `step` from the first arrival to `end`: at each
 * sample t, t minus the send time of the newest update that had arrived by t. An update overtaken
 * by a newer one does not make the information younger.
 */
export function ageOfInformation(updates: readonly ReceivedUpdate[], step: number, end: number): SpreadFigures | null {
  const byArrival = [...updates].sort((a, b) => a.receivedAt - b.receivedAt);
  if (!byArrival.length) return null;
  const ages: number[] = [];
  let next = 0;
  let newest = -Infinity;
  const first = Math.ceil(byArrival[0].receivedAt / step - 1e-9);
  for (let k = first; k * step <= end + 1e-9; k++) {
    const t = k * step;
    while (next < byArrival.length && byArrival[next].receivedAt <= t + 1e-12) newest = Math.max(newest, byArrival[next++].sentAt);
    ages.push(t - newest);
  }
  return spread(ages);
}

/** Time between consecutive arrivals [s]; null with fewer than two. */
export function interArrivalGaps(updates: readonly ReceivedUpdate[]): SpreadFigures | null {
  const times = updates.map((u) => u.receivedAt).sort((a, b) => a - b);
  return spread(times.slice(1).map((t, i) => t - times[i]));
}
