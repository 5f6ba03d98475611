import { describe, expect, it } from 'vitest';
import { secondsLeft } from '../../../src/sweep/eta.js';
import { defaultJobs } from '../../../src/sweep/run-one.js';

describe('the sweep ETA', () => {
  it('follows run times that grow with the first swept field instead of the pace of the first runs', () => {
    // fleets of 20, 40, 60 cars took 1, 2, 3 s; 80 and 100 cars are left: 4 + 5 s, not 2 + 2
    const finished = [20, 40, 60].map((x) => ({ x, wallSeconds: x / 20 }));
    expect(secondsLeft(finished, [{ x: 80 }, { x: 100 }], 1)).toBeCloseTo(9, 9);
    // shared by the lanes running at once
    expect(secondsLeft(finished, [{ x: 80 }, { x: 100 }], 2)).toBeCloseTo(4.5, 9);
  });

  it('uses the mean without a numeric field or with one value measured, never predicts below the fastest run, and knows nothing before a run', () => {
    expect(secondsLeft([{ wallSeconds: 1 }, { wallSeconds: 3 }], [{}, {}, {}], 1)).toBe(6);
    expect(secondsLeft([{ x: 10, wallSeconds: 2 }], [{ x: 300 }], 1)).toBe(2);
    // falling run times: the line would go negative at 100, the fastest run measured bounds it
    expect(
      secondsLeft(
        [
          { x: 10, wallSeconds: 2 },
          { x: 20, wallSeconds: 1 },
        ],
        [{ x: 100 }],
        1,
      ),
    ).toBe(1);
    expect(secondsLeft([], [{ x: 1 }], 1)).toBeNull();
    expect(secondsLeft([{ wallSeconds: 1 }], [], 1)).toBe(0);
  });
});

describe('the default --jobs', () => {
  it('is one lane on two cores unless measured otherwise, all cores from three up, one for emulated runs', () => {
    expect(defaultJobs('sim', 2, undefined)).toBe(1);
    expect(defaultJobs('sim', 2, 2)).toBe(2);
    expect(defaultJobs('sim', 8, undefined)).toBe(8);
    expect(defaultJobs('sim', 8, 1)).toBe(1);
    expect(defaultJobs('docker', 8, undefined)).toBe(1);
  });
});
