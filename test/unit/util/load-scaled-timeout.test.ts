import { describe, expect, it } from 'vitest';
import { loadScaledTimeout, MAX_LOAD_SCALE, machineLoad } from '../../../src/util/load-scaled-timeout.js';

describe('a wall-clock timeout scaled by the machine’s load', () => {
  it('is the quiet value on a quiet machine (a process has a core of its own)', () => {
    expect(loadScaledTimeout(20_000, { load1: 0, cores: 2 })).toEqual({ ms: 20_000, describe: '20000 ms' });
    expect(loadScaledTimeout(20_000, { load1: 0.9, cores: 2 }).ms).toBe(20_000);
    expect(loadScaledTimeout(20_000, { load1: 3, cores: 8 }).ms).toBe(20_000);
  });

  it('grows by (load + 1) / cores: load 15 on 2 cores gives 8 times, and says so', () => {
    const t = loadScaledTimeout(20_000, { load1: 15, cores: 2 });
    expect(t.ms).toBe(160_000);
    expect(t.describe).toBe('160000 ms (20000 ms on a quiet machine, x8.0 for load 15.0 on 2 cores)');
    expect(loadScaledTimeout(20_000, { load1: 3, cores: 2 }).ms).toBe(40_000);
  });

  it('a process that needs its quiet time at a fair share of a core meets it, for any load up to the cap', () => {
    for (const cores of [1, 2, 4, 16])
      for (let load1 = 0; load1 <= 40; load1 += 0.5) {
        const share = Math.min(1, cores / (load1 + 1));
        const needed = 20_000 / share;
        if (needed <= 20_000 * MAX_LOAD_SCALE)
          expect(loadScaledTimeout(20_000, { load1, cores }).ms).toBeGreaterThanOrEqual(Math.round(needed));
      }
  });

  it('never beyond MAX_LOAD_SCALE times the quiet value; a load it cannot read counts as none', () => {
    expect(loadScaledTimeout(1000, { load1: 1e6, cores: 2 }).ms).toBe(1000 * MAX_LOAD_SCALE);
    expect(loadScaledTimeout(1000, { load1: Number.NaN, cores: 2 }).ms).toBe(1000);
    expect(loadScaledTimeout(1000, { load1: -1, cores: 0 }).ms).toBe(1000);
  });

  it('reads this machine’s load', () => {
    const load = machineLoad();
    expect(load.cores).toBeGreaterThanOrEqual(1);
    expect(load.load1).toBeGreaterThanOrEqual(0);
  });
});
