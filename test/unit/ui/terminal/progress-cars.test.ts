import { describe, expect, it } from 'vitest';
import { createLineReporter } from '../../../../src/ui/terminal/run/line-reporter.js';
import { CARS_NAMED_MAX, progressCars } from '../../../../src/ui/terminal/run/progress-cars.js';

const car = (i: number, v: number, braking = false, collided = false) => ({ name: `car${i}`, x: 0, y: 0, yaw: 0, v, braking, collided });

describe('progress lines stay short at many cars', () => {
  it('names each car up to the limit', () => {
    expect(progressCars([car(0, 10), car(1, 4.25, true), car(2, 0, false, true)])).toBe('car0 10.0m/s, car1 4.3m/s BRAKE, car2 0.0m/s HIT');
  });

  it('sums up a fleet: count, speed range and mean, braking and hit', () => {
    const fleet = Array.from({ length: 181 }, (_, i) => car(i, 20 + (i % 11), i % 60 === 0, i === 5));
    expect(progressCars(fleet)).toBe('181 cars 20.0-30.0m/s (mean 24.9), 4 braking, 1 hit');
    const lines: string[] = [];
    const report = createLineReporter((l) => lines.push(l));
    report({ type: 'progress', t: 1, duration: 10, cars: fleet, minTtc: null } as never);
    expect(lines[0].length).toBeLessThan(100);
    expect(progressCars(fleet.slice(0, CARS_NAMED_MAX))).toContain('car11 ');
  });
});
