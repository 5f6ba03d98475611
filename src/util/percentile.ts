/**
 * The percentile definitions cavsim uses, in one place. Both take an ascending-sorted array.
 * Step timing, control lag and ns-3 lag use the nearest rank (a value that was measured);
 * V2V latency summaries interpolate (type 7), as they always have, so summaries stay comparable.
 */

/** Nearest-rank percentile of an ascending-sorted array, `p` in 0..100; undefined when empty. */
export function percentileOfSorted(sorted: readonly number[], p: number): number | undefined {
  if (!sorted.length) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Quantile `q` in 0..1 of an ascending-sorted array, linear between closest ranks (the common "type 7"). */
export function interpolatedQuantile(sorted: ArrayLike<number>, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}
