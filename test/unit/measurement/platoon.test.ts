import { describe, expect, it } from 'vitest';
import { PlatoonFigures, type PlatoonLink } from '../../../src/measurement/platoon.js';

const link = (follower: string, predecessor: string): PlatoonLink => ({ follower, predecessor, timeGap: 0.5, standstill: 2 });

describe('platoon figures', () => {
  it('peak gap error, minimum gap and time headway per follower; string stability down the line, by hand', () => {
    const figures = new PlatoonFigures([link('b', 'a'), link('c', 'b')]);
    // desired gap at 10 m/s: 2 + 0.5 * 10 = 7 m
    const steps = [
      { gaps: { 'a-b': 7, 'b-c': 7 }, v: { b: 10, c: 10 } },
      { gaps: { 'a-b': 6, 'b-c': 7.5 }, v: { b: 10, c: 10 } }, // errors 1 and 0.5
      { gaps: { 'a-b': 5, 'b-c': 6 }, v: { b: 4, c: 0.5 } }, // desired 4 and 2.25: errors 1 and 3.75; c is not moving fast enough for a headway
    ];
    for (const s of steps)
      figures.record(
        (a, b) => (s.gaps as Record<string, number>)[`${a}-${b}`],
        (car) => (s.v as Record<string, number>)[car],
      );
    const summary = figures.summary((v) => +v.toFixed(6));
    expect(summary.followers).toEqual([
      { vehicle: 'b', predecessor: 'a', max_gap_error_m: 1, min_gap_m: 5, min_time_headway_s: 0.6 },
      { vehicle: 'c', predecessor: 'b', max_gap_error_m: 3.75, min_gap_m: 6, min_time_headway_s: 0.7 },
    ]);
    expect(summary.string_stability).toEqual({ ratios: [{ vehicle: 'c', ratio: 3.75 }], stable: false });
  });

  it('one follower has no string to judge', () => {
    expect(new PlatoonFigures([link('b', 'a')]).summary((v) => v).string_stability).toBeNull();
  });
});
