import { describe, expect, it } from 'vitest';
import { epochNs } from '../../../src/util/epoch-ns.js';

describe('epochNs', () => {
  it('reads the wall clock to within its millisecond (so stamps taken in two containers compare)', () => {
    let worst = 0;
    for (let i = 0; i < 200_000; i++) {
      const before = Date.now();
      const ms = Number(epochNs()) / 1e6;
      const after = Date.now();
      // Date.now() is the wall clock's millisecond floor: `before` at the start, `after` at the end
      worst = Math.max(worst, before - ms, ms - (after + 1));
    }
    expect(worst).toBeLessThan(0.1);
  });

  it('has sub-microsecond resolution and never runs backwards', () => {
    let last = epochNs();
    let distinct = 0;
    for (let i = 0; i < 10000; i++) {
      const now = epochNs();
      expect(now >= last).toBe(true);
      if (now !== last) distinct++;
      last = now;
    }
    expect(distinct).toBeGreaterThan(5000);
  });
});
