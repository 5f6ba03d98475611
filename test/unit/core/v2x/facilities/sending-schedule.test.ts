import { describe, expect, it } from 'vitest';
import { accelerationTracker, periodicChecks } from '../../../../../src/core/v2x/facilities/sending-schedule.js';

const odom = (t: number, v: number) => ({ t, x: 0, y: 0, yaw: 0, v, steer: 0, yawRate: 0 });

describe('sending schedule', () => {
  it('checks once a period from an offset fixed by the name, skipping checks a slow tick passed', () => {
    const due = (name: string) => {
      const check = periodicChecks(name, 0.1);
      return Array.from({ length: 100 }, (_, k) => k * 0.01).filter((t) => check(t));
    };
    const a = due('cam-car0');
    expect(due('cam-car0')).toEqual(a);
    expect(a.length).toBeGreaterThanOrEqual(9);
    for (let i = 1; i < a.length; i++) expect(a[i] - a[i - 1]).toBeCloseTo(0.1, 9);
    expect(due('cam-car1')[0]).not.toBe(a[0]);
    const check = periodicChecks('x', 0.1);
    const first = [0, 0.05, 0.1].find((t) => check(t))!;
    expect(check(first + 0.35)).toBe(true); // late: one send, not three
    expect(check(first + 0.36)).toBe(false);
  });

  it("tracks the car's acceleration from consecutive speeds, holding it on a repeated stamp", () => {
    const a = accelerationTracker();
    expect(a(odom(0, 10))).toBe(0);
    expect(a(odom(0.1, 9))).toBeCloseTo(-10, 9);
    expect(a(odom(0.1, 9))).toBeCloseTo(-10, 9);
    expect(a(odom(0.2, 9.5))).toBeCloseTo(5, 9);
  });
});
