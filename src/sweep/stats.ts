/** Two-sided 95% quantiles of Student's t by degrees of freedom (1..30, then 40, 60, 120). */
const T975: Record<number, number> = {
  1: 12.706,
  2: 4.303,
  3: 3.182,
  4: 2.776,
  5: 2.571,
  6: 2.447,
  7: 2.365,
  8: 2.306,
  9: 2.262,
  10: 2.228,
  11: 2.201,
  12: 2.179,
  13: 2.16,
  14: 2.145,
  15: 2.131,
  16: 2.12,
  17: 2.11,
  18: 2.101,
  19: 2.093,
  20: 2.086,
  21: 2.08,
  22: 2.074,
  23: 2.069,
  24: 2.064,
  25: 2.06,
  26: 2.056,
  27: 2.052,
  28: 2.048,
  29: 2.045,
  30: 2.042,
  40: 2.021,
  60: 2.0,
  120: 1.98,
};

export function tQuantile975(df: number): number {
  if (df < 1) return NaN;
  if (T975[df] !== undefined) return T975[df];
  if (df > 120) return 1.96;
  // Between tabulated degrees of freedom the quantile is close to linear in 1/df.
  const keys = Object.keys(T975)
    .map(Number)
    .sort((a, b) => a - b);
  const hi = keys.find((k) => k > df)!;
  const lo = keys[keys.indexOf(hi) - 1];
  const w = (1 / df - 1 / lo) / (1 / hi - 1 / lo);
  return T975[lo] + w * (T975[hi] - T975[lo]);
}

export interface MeanInterval {
  n: number;
  mean: number | null;
  /** Half-width of the 95% confidence interval of the mean (Student's t); null below two samples. */
  ci95: number | null;
  /** The interval's ends, clipped to the metric's range (a ratio's never leaves [0, 1]); null below two samples. */
  lo95?: number | null;
  hi95?: number | null;
}

/** The values a metric can take: an interval of its mean never reaches outside them. */
export type MetricRange = readonly [number, number];
export const NON_NEGATIVE: MetricRange = [0, Infinity];
export const RATIO: MetricRange = [0, 1];

export function meanInterval(values: readonly (number | null | undefined)[], range: MetricRange = [-Infinity, Infinity]): MeanInterval {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const n = xs.length;
  if (n === 0) return { n, mean: null, ci95: null };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, ci95: null };
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  const ci95 = tQuantile975(n - 1) * Math.sqrt(variance / n);
  const clip = (v: number) => Math.min(range[1], Math.max(range[0], v));
  return { n, mean, ci95, lo95: clip(mean - ci95), hi95: clip(mean + ci95) };
}

/**
 * 95% Wilson score interval of a proportion k/n: unlike the normal approximation it stays inside
 * [0, 1] and is not zero-width at 0 or n, which is where collision shares usually sit.
 */
export function wilsonInterval(k: number, n: number, z = 1.959964): { lo: number; hi: number } {
  if (n === 0) return { lo: 0, hi: 1 };
  const p = k / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  // At 0 and n the bound is exactly 0 or 1; rounding would leave 0.9999999999999999.
  return { lo: k === 0 ? 0 : Math.max(0, centre - half), hi: k === n ? 1 : Math.min(1, centre + half) };
}
