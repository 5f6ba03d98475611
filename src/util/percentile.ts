/** Nearest-rank percentile of an ascending-sorted array; undefined when empty. */
export function percentileOfSorted(sorted: readonly number[], p: number): number | undefined {
  if (!sorted.length) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}
