/** One run as the ETA sees it: the first swept field's value (when a number) and, once finished, its measured wall time. */
export interface TimedRun {
  x?: number;
  wallSeconds?: number;
}

/**
 * Seconds left for the runs not finished, from the finished runs' measured wall times. Run times
 * often grow with the first swept field (more cars, a longer duration): with two or more of its
 * values measured, each run left is predicted by a least-squares line in that value (never below
 * the fastest run measured), else by the mean; the sum is shared by the lanes running at once.
 */
export function secondsLeft(finished: readonly TimedRun[], left: readonly TimedRun[], lanes: number): number | null {
  const timed = finished.filter((r) => typeof r.wallSeconds === 'number') as { x?: number; wallSeconds: number }[];
  if (!timed.length) return null;
  if (!left.length) return 0;
  const walls = timed.map((r) => r.wallSeconds);
  const mean = walls.reduce((a, b) => a + b, 0) / walls.length;
  const floor = Math.min(...walls);
  const xs = timed.filter((r) => typeof r.x === 'number') as { x: number; wallSeconds: number }[];
  let predict = (_x?: number) => mean;
  if (new Set(xs.map((r) => r.x)).size >= 2) {
    const mx = xs.reduce((a, r) => a + r.x, 0) / xs.length;
    const my = xs.reduce((a, r) => a + r.wallSeconds, 0) / xs.length;
    const sxx = xs.reduce((a, r) => a + (r.x - mx) ** 2, 0);
    const slope = xs.reduce((a, r) => a + (r.x - mx) * (r.wallSeconds - my), 0) / sxx;
    predict = (x?: number) => (typeof x === 'number' ? Math.max(floor, my + slope * (x - mx)) : mean);
  }
  return left.reduce((sum, r) => sum + predict(r.x), 0) / Math.max(1, lanes);
}
