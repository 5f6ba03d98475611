import { describe, expect, it } from 'vitest';
// The page's own module, as the browser loads it (plain ES module, no build step).
// @ts-expect-error no types for the page's JavaScript
import { chartPairs } from '../../../../src/ui/viewer/page/series.js';

const pair = (a: string, b: string, d: number[]) => ({ a, b, t: d.map((_, i) => i), d, ttc: d.map(() => null) });

describe('the viewer charts pairs', () => {
  const data = {
    pairs: {
      'car0|car1': pair('car0', 'car1', [8, 6]),
      'car0|car2': pair('car0', 'car2', [16, 3]),
      'car1|car2': pair('car1', 'car2', [8, 7]),
      'car0|car3': pair('car0', 'car3', [24, 1]),
      'car2|car3': pair('car2', 'car3', [8, 5]),
    },
  };

  it('of a platoon: each follower with the car it follows, whatever else came closer', () => {
    const vehicles = [
      { name: 'car0' },
      { name: 'car1', follows: 'car0' },
      { name: 'car2', follows: 'car1' },
      { name: 'car3', follows: 'car2' },
    ];
    expect(chartPairs(data, vehicles, 6)).toEqual(['car0|car1', 'car1|car2', 'car2|car3']);
  });

  it('of other fleets: the closest approaches', () => {
    const vehicles = [{ name: 'car0' }, { name: 'car1' }, { name: 'car2' }, { name: 'car3' }];
    expect(chartPairs(data, vehicles, 2)).toEqual(['car0|car3', 'car0|car2']);
  });
});
