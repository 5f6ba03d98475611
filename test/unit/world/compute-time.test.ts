import { describe, expect, it } from 'vitest';
import type { ResolvedCompute } from '../../../src/scenario/resolved.js';
import { computeDelay, firstStepActing } from '../../../src/world/compute-time.js';

const compute = (c: Partial<ResolvedCompute> & Pick<ResolvedCompute, 'model'>): ResolvedCompute => ({
  scale: 1,
  fixed: 0,
  timeout: 5,
  ...c,
});

describe('computeDelay', () => {
  it('is zero for model none, whatever the tick cost', () => {
    expect(computeDelay(compute({ model: 'none', scale: 3, fixed: 0.5 }), { wallS: 0.2, cpuS: 0.1 })).toBe(0);
  });

  it('is the fixed time for model fixed, whatever the tick cost', () => {
    expect(computeDelay(compute({ model: 'fixed', fixed: 0.025, scale: 4 }), { wallS: 1, cpuS: 2 })).toBe(0.025);
    expect(computeDelay(compute({ model: 'fixed', fixed: 0.025 }), { wallS: 0 })).toBe(0.025);
  });

  it('is the CPU time times scale for model measured when CPU time was read', () => {
    expect(computeDelay(compute({ model: 'measured', scale: 2 }), { wallS: 0.5, cpuS: 0.01 })).toBeCloseTo(0.02, 15);
    expect(computeDelay(compute({ model: 'measured', scale: 1 }), { wallS: 0.5, cpuS: 0.003 })).toBe(0.003);
  });

  it('uses a CPU time of zero rather than falling back to the wall clock', () => {
    expect(computeDelay(compute({ model: 'measured', scale: 2 }), { wallS: 0.5, cpuS: 0 })).toBe(0);
  });

  it('falls back to the wall clock times scale when CPU time is missing', () => {
    expect(computeDelay(compute({ model: 'measured', scale: 3 }), { wallS: 0.004 })).toBeCloseTo(0.012, 15);
    expect(computeDelay(compute({ model: 'measured', scale: 0.5 }), { wallS: 0.1, cpuS: undefined })).toBeCloseTo(0.05, 15);
  });
});

describe('firstStepActing', () => {
  const dt = 0.01;

  it('acts at the next step with no delay', () => {
    expect(firstStepActing(0, 0, dt)).toBe(1);
    expect(firstStepActing(7, 0, dt)).toBe(8);
  });

  it('acts at the next step when ready within one timestep', () => {
    expect(firstStepActing(7, 0.005, dt)).toBe(8);
    expect(firstStepActing(7, 0.0001, dt)).toBe(8);
    expect(firstStepActing(7, 0.01, dt)).toBe(8);
  });

  it('acts as many steps later as the delay took, rounded up', () => {
    expect(firstStepActing(7, 0.025, dt)).toBe(10);
    expect(firstStepActing(7, 0.015, dt)).toBe(9);
    expect(firstStepActing(0, 0.3, dt)).toBe(30);
    expect(firstStepActing(100, 0.3, dt)).toBe(130);
  });

  it('treats a delay of exactly n timesteps as n steps despite floating-point division', () => {
    expect(firstStepActing(7, 0.02, dt)).toBe(9);
    // 0.07 / 0.01 === 7.000000000000001 and 0.14 / 0.01 === 14.000000000000002 in doubles.
    expect(0.07 / 0.01).toBeGreaterThan(7);
    expect(firstStepActing(0, 0.07, dt)).toBe(7);
    expect(firstStepActing(0, 0.14, dt)).toBe(14);
    // 0.035 / 0.005 === 7.000000000000001 too.
    expect(firstStepActing(3, 0.035, 0.005)).toBe(10);
  });

  it('rounds up a delay just past a whole number of steps', () => {
    expect(firstStepActing(0, 0.0201, dt)).toBe(3);
  });
});
