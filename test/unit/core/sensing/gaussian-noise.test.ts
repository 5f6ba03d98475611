import { describe, expect, it } from 'vitest';
import { GaussianNoise, inverseNormalCdf } from '../../../../src/core/sensing/gaussian-noise.js';

describe('inverseNormalCdf', () => {
  it('gives the textbook quantiles', () => {
    expect(inverseNormalCdf(0.5)).toBeCloseTo(0, 12);
    expect(inverseNormalCdf(0.975)).toBeCloseTo(1.959964, 6);
    expect(inverseNormalCdf(0.841344746)).toBeCloseTo(1, 6);
    expect(inverseNormalCdf(0.001)).toBeCloseTo(-3.090232, 6);
  });
});

describe('GaussianNoise', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const a = new GaussianNoise(42);
    const b = new GaussianNoise(42);
    const c = new GaussianNoise(43);
    const sa = Array.from({ length: 100 }, () => a.normal());
    expect(Array.from({ length: 100 }, () => b.normal())).toEqual(sa);
    expect(Array.from({ length: 100 }, () => c.normal())).not.toEqual(sa);
    a.reseed(42);
    expect(a.normal()).toBe(sa[0]);
  });

  it('has mean 0, variance 1 and the normal share within one sigma', () => {
    const g = new GaussianNoise(1);
    const n = 200_000;
    let sum = 0;
    let sumSq = 0;
    let within = 0;
    for (let i = 0; i < n; i++) {
      const z = g.normal();
      sum += z;
      sumSq += z * z;
      if (Math.abs(z) < 1) within++;
    }
    expect(Math.abs(sum / n)).toBeLessThan(0.01);
    expect(sumSq / n).toBeGreaterThan(0.98);
    expect(sumSq / n).toBeLessThan(1.02);
    expect(within / n).toBeCloseTo(0.6827, 2);
  });
});
