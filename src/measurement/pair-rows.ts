/**
 * Which pairs of cars get a row in pairs.csv at a step. Every pair gets one when it is within
 * PAIR_ROW_DISTANCE_M (centre to centre) or closing with a TTC of at most PAIR_ROW_TTC_S; cars
 * far apart that are not closing fast get none, so the rows grow with the cars near each other,
 * not as N(N-1)/2. Each pair's minima (distance, gap, TTC) and collision are still taken at every
 * step, for every pair, exactly as before; summary.json lists the pairs that ever had a row or
 * collided, and its run-wide minima cover every pair.
 */
export const PAIR_ROW_DISTANCE_M = 10;
export const PAIR_ROW_TTC_S = 5;

export function pairRowKept(distance: number, ttc: number | undefined): boolean {
  return distance <= PAIR_ROW_DISTANCE_M || (ttc !== undefined && ttc <= PAIR_ROW_TTC_S);
}

/**
 * A lower bound on any time to collision of two cars (the time until their circumscribed circles
 * touch at the largest relative speed they can have): the TTC need not be computed when this bound
 * already exceeds every value the TTC could matter for. Infinity when neither car moves.
 */
export function ttcLowerBound(distance: number, radiusA: number, radiusB: number, speedA: number, speedB: number): number {
  const relative = Math.abs(speedA) + Math.abs(speedB);
  const apart = distance - radiusA - radiusB;
  if (apart <= 0) return 0;
  return relative > 0 ? apart / relative : Infinity;
}

/** Relative margin on the bound, against rounding in the exact TTC's arithmetic. */
export const BOUND_MARGIN = 1e-9;
