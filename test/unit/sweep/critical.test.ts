import { describe, expect, it } from 'vitest';
import { findCritical, monotonicityNotes, type Probe } from '../../../src/sweep/critical.js';

/** A probe over a pure function that records every value it was asked about. */
function recordingProbe(collides: (x: number) => boolean) {
  const asked: number[][] = [];
  const probe: Probe = async (values) => {
    asked.push(values);
    return values.map((v) => ({ collision: collides(v) }));
  };
  return { probe, asked };
}

describe('critical-value search', () => {
  it('brackets the flip of a monotonic outcome within the tolerance', async () => {
    const { probe, asked } = recordingProbe((x) => x > 137);
    const r = await findCritical(probe, { lo: 10, hi: 500, tolerance: 5, coarse: 5, parallel: 1 });
    expect(r.status).toBe('found');
    expect(r.monotonic).toBe(true);
    expect(r.notes).toEqual([]);
    expect(r.lastSafe!).toBeLessThanOrEqual(137);
    expect(r.firstCollision!).toBeGreaterThan(137);
    expect(r.firstCollision! - r.lastSafe!).toBeLessThanOrEqual(5);
    // coarse pass of 5, then one value per halving of the 122.5-wide bracket down to 5
    expect(asked[0]).toEqual([10, 132.5, 255, 377.5, 500]);
    expect(asked.length - 1).toBe(Math.ceil(Math.log2(122.5 / 5)));
    expect(new Set(asked.flat()).size).toBe(asked.flat().length);
  });

  it('probes several values per round when it can run them in parallel', async () => {
    const { probe, asked } = recordingProbe((x) => x > 137);
    const r = await findCritical(probe, { lo: 10, hi: 500, tolerance: 5, coarse: 5, parallel: 3 });
    expect(r.firstCollision! - r.lastSafe!).toBeLessThanOrEqual(5);
    expect(asked.slice(1).every((round) => round.length === 3)).toBe(true);
    expect(asked.length - 1).toBeLessThan(Math.ceil(Math.log2(122.5 / 5)));
  });

  it('says so when the sampled outcome is not monotonic, and reports the first flip', async () => {
    const { probe } = recordingProbe((x) => (x >= 100 && x <= 200) || x > 400);
    const r = await findCritical(probe, { lo: 10, hi: 500, tolerance: 5, coarse: 5, parallel: 1 });
    expect(r.monotonic).toBe(false);
    expect(r.notes.join(' ')).toMatch(/not monotonic: collision at [\d.]+ but none at 255/);
    expect(r.status).toBe('found');
    expect(r.lastSafe!).toBeLessThan(100);
    expect(r.firstCollision!).toBeGreaterThanOrEqual(100);
    expect(r.firstCollision! - r.lastSafe!).toBeLessThanOrEqual(5);
  });

  it('finds a dip inside the bracket when it probes several values at once', async () => {
    // Coarse 0,100,...,400 looks monotonic; the round 125,150,175 lands one value in the dip.
    const { probe, asked } = recordingProbe((x) => x > 100 && !(x > 140 && x < 170));
    const r = await findCritical(probe, { lo: 0, hi: 400, tolerance: 1, coarse: 5, parallel: 3 });
    expect(asked[1]).toEqual([125, 150, 175]);
    expect(r.monotonic).toBe(false);
    expect(r.notes.some((n) => /^not monotonic: collision at [\d.]+ but none at 150$/.test(n))).toBe(true);
    expect(r.lastSafe!).toBeLessThanOrEqual(100);
    expect(r.firstCollision! - r.lastSafe!).toBeLessThanOrEqual(1);
  });

  it('reports a range where the outcome never flips', async () => {
    const nowhere = await findCritical(recordingProbe(() => false).probe, { lo: 10, hi: 500, tolerance: 5, coarse: 4, parallel: 1 });
    expect(nowhere).toMatchObject({ status: 'collides-nowhere', lastSafe: 500, firstCollision: null, monotonic: true });
    const everywhere = await findCritical(recordingProbe(() => true).probe, { lo: 10, hi: 500, tolerance: 5, coarse: 4, parallel: 1 });
    expect(everywhere).toMatchObject({ status: 'collides-everywhere', lastSafe: null, firstCollision: 10, monotonic: true });
    expect(everywhere.samples).toHaveLength(4);
  });

  it('flags values where repeats disagree', async () => {
    const probe: Probe = async (values) => values.map((v) => ({ collision: v > 50, ...(v > 50 && v < 80 ? { mixed: true } : {}) }));
    const r = await findCritical(probe, { lo: 0, hi: 100, tolerance: 10, coarse: 3, parallel: 1 });
    expect(r.monotonic).toBe(false);
    expect(r.notes.some((n) => /repeats disagree/.test(n))).toBe(true);
  });

  it('lists every collision followed by a safe value', () => {
    const s = (value: number, collision: boolean) => ({ value, collision });
    expect(monotonicityNotes([s(1, false), s(2, true), s(3, true)])).toEqual([]);
    expect(monotonicityNotes([s(1, true), s(2, false), s(3, false)])).toHaveLength(2);
  });
});
