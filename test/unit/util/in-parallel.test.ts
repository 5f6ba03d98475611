import { describe, expect, it } from 'vitest';
import { inParallel } from '../../../src/util/in-parallel.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('inParallel', () => {
  it('keeps item order and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const out = await inParallel([5, 1, 4, 2, 3, 6, 7], 3, async (n) => {
      most = Math.max(most, ++running);
      for (let i = 0; i < n; i++) await tick();
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 60, 70]);
    expect(most).toBe(3);
  });

  it('starts nothing new after a failure, waits for what runs, and throws the first error', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const ticks = [1, 3, 5, 1, 1, 1];
    const run = inParallel([0, 1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      for (let i = 0; i < ticks[n]; i++) await tick();
      if (n === 1) throw new Error('item 1 failed');
      finished.push(n);
    });
    await expect(run).rejects.toThrow('item 1 failed');
    expect(started).toEqual([0, 1, 2]);
    expect(finished.sort()).toEqual([0, 2]);
  });
});
