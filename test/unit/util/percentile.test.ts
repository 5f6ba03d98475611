import { describe, expect, it } from 'vitest';
import { interpolatedQuantile, percentileOfSorted } from '../../../src/util/percentile.js';

describe('percentileOfSorted (nearest rank)', () => {
  it('returns a measured value: the ceil(p/100 * n)-th smallest', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentileOfSorted(xs, 50)).toBe(5);
    expect(percentileOfSorted(xs, 99)).toBe(10);
    expect(percentileOfSorted(xs, 100)).toBe(10);
    expect(percentileOfSorted(xs, 0)).toBe(1);
    expect(percentileOfSorted([10, 11, 12, 30], 50)).toBe(11);
  });

  it('is undefined for no samples', () => {
    expect(percentileOfSorted([], 50)).toBeUndefined();
  });
});

describe('interpolatedQuantile (type 7)', () => {
  it('interpolates between closest ranks', () => {
    expect(interpolatedQuantile([10, 11, 12, 30], 0.5)).toBe(11.5);
    expect(interpolatedQuantile([10, 11, 12, 30], 0.99)).toBeCloseTo(29.46, 10);
    expect(interpolatedQuantile([10, 11, 12, 30], 0)).toBe(10);
    expect(interpolatedQuantile([10, 11, 12, 30], 1)).toBe(30);
  });
});
