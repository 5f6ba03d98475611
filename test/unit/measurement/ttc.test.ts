import { describe, expect, it } from 'vitest';
import { centreDistance, centreDistanceTtc, closingSpeed } from '../../../src/core/physics/ttc.js';

describe('time to collision (Eq. 3.7)', () => {
  it('head-on at 10 m/s each, 20 m apart: 1 s', () => {
    const a = { x: 0, y: 0, yaw: 0, v: 10 };
    const b = { x: 20, y: 0, yaw: Math.PI, v: 10 };
    expect(centreDistance(a, b)).toBe(20);
    expect(closingSpeed(a, b)).toBeCloseTo(20, 12);
    expect(centreDistanceTtc(a, b)).toBeCloseTo(1, 12);
  });

  it('one car stopped: distance over the other speed', () => {
    expect(centreDistanceTtc({ x: 0, y: 0, yaw: 0, v: 5 }, { x: 10, y: 0, yaw: 0, v: 0 })).toBeCloseTo(2, 12);
  });

  it('uses the cosine of the angle to the other car: 3-4-5 geometry', () => {
    // a heads along +x towards b at (8, 6): cos θ1 = 8/10; b stands still. TTC = 10 / (10 * 0.8).
    expect(centreDistanceTtc({ x: 0, y: 0, yaw: 0, v: 10 }, { x: 8, y: 6, yaw: 0, v: 0 })).toBeCloseTo(1.25, 12);
    // crossing at right angles towards the same point, both 5 m away at 5 m/s: d = 5√2, closing 2·5·cos45°.
    const ttc = centreDistanceTtc({ x: -5, y: 0, yaw: 0, v: 5 }, { x: 0, y: -5, yaw: Math.PI / 2, v: 5 });
    expect(ttc).toBeCloseTo((5 * Math.SQRT2) / (2 * 5 * Math.SQRT1_2), 12);
  });

  it('is undefined while the pair is not closing', () => {
    expect(centreDistanceTtc({ x: 0, y: 0, yaw: Math.PI, v: 10 }, { x: 20, y: 0, yaw: 0, v: 10 })).toBeUndefined();
    expect(centreDistanceTtc({ x: 0, y: 0, yaw: 0, v: 10 }, { x: 20, y: 0, yaw: 0, v: 10 })).toBeUndefined();
    expect(centreDistanceTtc({ x: 0, y: 0, yaw: Math.PI / 2, v: 10 }, { x: 20, y: 0, yaw: Math.PI / 2, v: 10 })).toBeUndefined();
  });

  it('a follower faster than its leader closes at the speed difference', () => {
    expect(centreDistanceTtc({ x: 0, y: 0, yaw: 0, v: 12 }, { x: 10, y: 0, yaw: 0, v: 7 })).toBeCloseTo(2, 12);
  });
});
