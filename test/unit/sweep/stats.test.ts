import { describe, expect, it } from 'vitest';
import { meanInterval, tQuantile975 } from '../../../src/sweep/stats.js';

describe('means and 95% intervals', () => {
  it('uses Student t for small samples', () => {
    // 1, 2, 3: mean 2, sd 1, se 1/sqrt(3), t(2) = 4.303
    const m = meanInterval([1, 2, 3]);
    expect(m.mean).toBe(2);
    expect(m.ci95).toBeCloseTo(4.303 / Math.sqrt(3), 6);
    expect(m.n).toBe(3);
  });

  it('skips missing values and has no interval below two', () => {
    expect(meanInterval([null, 4])).toEqual({ n: 1, mean: 4, ci95: null });
    expect(meanInterval([])).toEqual({ n: 0, mean: null, ci95: null });
    expect(meanInterval([5, 5, 5]).ci95).toBe(0);
  });

  it('interpolates the t quantile between table rows and tends to 1.96', () => {
    expect(tQuantile975(1)).toBe(12.706);
    expect(tQuantile975(50)).toBeGreaterThan(2.0);
    expect(tQuantile975(50)).toBeLessThan(2.021);
    expect(tQuantile975(1000)).toBe(1.96);
  });
});
