import { describe, expect, it } from 'vitest';
import { groupBy } from '../../../src/util/group-by.js';

describe('groupBy', () => {
  it('keeps the items of each group in order, and the groups in the order their keys first came', () => {
    const groups = groupBy(
      [
        { car: 'b', t: 0 },
        { car: 'a', t: 0 },
        { car: 'b', t: 1 },
        { car: 'a', t: 1 },
        { car: 'b', t: 2 },
      ],
      (s) => s.car,
    );
    expect([...groups.keys()]).toEqual(['b', 'a']);
    expect(groups.get('b')!.map((s) => s.t)).toEqual([0, 1, 2]);
    expect(groups.get('a')!.map((s) => s.t)).toEqual([0, 1]);
  });

  it('groups a long trace (a 600 s run of 6 cars) whole', () => {
    const samples = Array.from({ length: 360_000 }, (_, i) => ({ car: `car${i % 6}`, i }));
    const groups = groupBy(samples, (s) => s.car);
    expect([...groups.values()].map((g) => g.length)).toEqual([60_000, 60_000, 60_000, 60_000, 60_000, 60_000]);
    expect(groups.get('car5')!.at(-1)!.i).toBe(359_999);
  });
});
