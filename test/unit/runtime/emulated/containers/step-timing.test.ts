import { describe, expect, it } from 'vitest';
import { StepTiming } from '../../../../../src/runtime/emulated/containers/step-timing.js';

describe('StepTiming', () => {
  const limits = { maxStepLateness: 0.005, maxLateFraction: 0.01 };

  it('reports percentiles of lateness and the fraction of steps over the threshold', () => {
    const t = new StepTiming(limits, 0.01);
    for (let i = 1; i <= 100; i++) t.add(i / 10, 0.1); // 0.1 .. 10 ms
    const f = t.figures(123n);
    expect(f).toMatchObject({
      steps: 100,
      step_s: 0.01,
      t0_epoch_ns: '123',
      step_lateness_p50_ms: 5,
      step_lateness_p99_ms: 9.9,
      step_lateness_max_ms: 10,
      late_threshold_ms: 5,
      late_steps: 50,
      late_fraction: 0.5,
    });
    expect(t.invalidReason(f)).toBe(
      '50 of 100 physics steps (50.0 %) started more than 5 ms late; the scenario allows 1.0 % (timing.maxLateFraction)',
    );
  });

  it('keeps a run valid when late steps stay within the allowed fraction', () => {
    const t = new StepTiming(limits, 0.01);
    for (let i = 0; i < 200; i++) t.add(i === 7 ? 40 : 0.02, 0.1);
    const f = t.figures(0n);
    expect(f.late_steps).toBe(1);
    expect(f.late_fraction).toBe(0.005);
    expect(t.invalidReason(f)).toBeUndefined();
  });

  it('gives a running p99 from its histogram within one 10 µs bin of the exact one', () => {
    const t = new StepTiming(limits, 0.01);
    expect(t.snapshot()).toBeNull();
    for (let i = 0; i < 1000; i++) t.add(((i * 7919) % 1000) / 100, 0); // 0 .. 9.99 ms, shuffled
    const s = t.snapshot()!;
    expect(s.max_ms).toBe(9.99);
    expect(Math.abs(s.p99_ms - t.figures(0n).step_lateness_p99_ms!)).toBeLessThanOrEqual(0.01);
  });

  it('reports the control loop lag of drive commands', () => {
    const t = new StepTiming(limits, 0.01);
    [3, 1, 2].forEach((ms) => t.addControlLag(ms));
    expect(t.figures(0n)).toMatchObject({
      control_commands: 3,
      control_lag_p50_ms: 2,
      control_lag_p99_ms: 3,
      control_lag_max_ms: 3,
      late_commands: 0,
    });
  });

  it('marks a run invalid when too many drive commands missed their step', () => {
    const t = new StepTiming(limits, 0.01);
    for (let i = 0; i < 100; i++) t.add(0.01, 0.1);
    for (let i = 0; i < 100; i++) t.addControlLag(i < 5 ? 12 : 1);
    const f = t.figures(0n);
    expect(f).toMatchObject({ late_commands: 5, late_command_fraction: 0.05, late_steps: 0 });
    expect(t.invalidReason(f)).toBe(
      '5 of 100 drive commands (5.0 %) arrived too late for the next physics step (control lag over 10 ms); the scenario allows 1.0 % (timing.maxLateFraction)',
    );
  });

  it('counts the steps the late commands answered: a stall makes every car late in one step, too many cars spread them', () => {
    const stall = new StepTiming(limits, 0.01);
    for (let step = 0; step < 100; step++)
      for (let car = 0; car < 10; car++) stall.addControlLag(step === 40 || step === 41 ? 14 : 2, `car${car}`, step);
    for (let i = 0; i < 100; i++) stall.add(0.01, 0.1);
    const f = stall.figures(0n);
    expect(f).toMatchObject({ late_commands: 20, late_command_fraction: 0.02, late_command_steps: 2 });
    expect(stall.invalidReason(f)).toMatch(/^20 of 1000 drive commands \(2\.0 %\) arrived too late .*, answering 2 of 100 steps; /);

    const spread = new StepTiming(limits, 0.01);
    for (let step = 0; step < 100; step++)
      for (let car = 0; car < 10; car++) spread.addControlLag(car === step % 10 && step % 5 === 0 ? 11 : 2, `car${car}`, step);
    expect(spread.figures(0n)).toMatchObject({ late_commands: 20, late_command_steps: 20 });
  });

  it('marks a run invalid when a car stops answering its control ticks (hung or paused), naming it', () => {
    const t = new StepTiming(limits, 0.01);
    for (let i = 0; i < 1000; i++) t.add(0.01, 0.1);
    for (let i = 0; i < 1000; i++) t.addControlLag(1, 'car0');
    for (let i = 0; i < 234; i++) t.addControlLag(1, 'car1');
    const f = t.figures(0n, { car0: 1001, car1: 1001, car2: 1001 });
    expect(f.drive_commands_by_car).toEqual({
      car0: { received: 1000, expected: 1001 },
      car1: { received: 234, expected: 1001 },
      car2: { received: 0, expected: 1001 },
    });
    expect(t.invalidReason(f)).toBe(
      'car1 answered 234 of 1001 control ticks (76.6 % unanswered): it stalled, was paused or stopped driving; the scenario allows 1.0 % (timing.maxLateFraction)',
    );
  });

  it('does not judge a car that never stamps its commands, nor one that misses only its first and last tick', () => {
    const t = new StepTiming(limits, 0.01);
    for (let i = 0; i < 100; i++) t.addControlLag(1, 'car0');
    expect(t.invalidReason(t.figures(0n, { car0: 102, own: 102 }))).toBeUndefined();
  });

  it('has no figures but zero fractions before any step', () => {
    const f = new StepTiming(limits, 0.01).figures(0n);
    expect(f).toMatchObject({ steps: 0, step_lateness_p99_ms: null, late_fraction: 0 });
  });
});
