import { describe, expect, it } from 'vitest';
import { believedEventTime } from '../../../../src/runtime/rosbridge/control-topics.js';

describe('the time a vehicle reports for its event', () => {
  it('is kept when the run has reached it (a step of lag allowed)', () => {
    expect(believedEventTime(1.3, 1.3, 0.01)).toBe(1.3);
    expect(believedEventTime(1.29, 1.3, 0.01)).toBe(1.29);
    expect(believedEventTime(1.31, 1.3, 0.01)).toBe(1.31);
  });

  it('is not believed when negative, in the future or not finite: the event is recorded now', () => {
    for (const reported of [-1e308, -0.5, 1e300, 2, Number.NaN, Number.POSITIVE_INFINITY])
      expect(believedEventTime(reported, 1.3, 0.01)).toBe(1.3);
  });
});
