import { describe, expect, it } from 'vitest';
import { PROGRESS_INTERVAL_S, stepSchedule, stepsPerPeriod } from '../../../src/world/step-schedule.js';

describe('stepsPerPeriod', () => {
  it('rounds the period to whole steps, never below one', () => {
    expect(stepsPerPeriod(10, 0.01)).toBe(10);
    expect(stepsPerPeriod(30, 0.01)).toBe(3); // 3.33 steps
    expect(stepsPerPeriod(40, 0.01)).toBe(3); // 2.5 steps: Math.round rounds half up
    expect(stepsPerPeriod(1000, 0.01)).toBe(1);
  });

  it('is the formula both runtimes used before (1 / rate / timestep, in that order)', () => {
    for (const timestep of [0.001, 0.005, 0.01, 0.02, 1 / 60, 0.1]) {
      for (const rate of [1, 3, 7, 10, 20, 25, 30, 40, 50, 100, 333]) {
        expect(stepsPerPeriod(rate, timestep)).toBe(Math.max(1, Math.round(1 / rate / timestep)));
      }
    }
  });
});

describe('stepSchedule', () => {
  const scenario = { duration: 12.345, physics: { timestep: 0.01, integrator: 'rk4' as const } };

  it('counts the run in steps and reports progress every 0.1 s', () => {
    const s = stepSchedule(scenario);
    expect(s.timestep).toBe(0.01);
    expect(s.totalSteps).toBe(1235);
    expect(PROGRESS_INTERVAL_S).toBe(0.1);
    expect(s.progressEvery).toBe(10);
    expect(stepSchedule({ ...scenario, physics: { ...scenario.physics, timestep: 0.5 } }).progressEvery).toBe(1);
  });

  it('gives each car its control and scan period; none for a car without a lidar', () => {
    const s = stepSchedule(scenario);
    expect(s.controlPeriod({ controlRate: 20 })).toBe(5);
    expect(s.scanPeriod({ lidar: { rate: 40 } as never })).toBe(3);
    expect(s.scanPeriod({})).toBeUndefined();
  });
});
