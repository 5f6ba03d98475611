import { describe, expect, it } from 'vitest';
import {
  accelerationForCommand,
  commandToDynamicsInputs,
  steeringVelocityForCommand,
} from '../../../../src/core/physics/command-conversion.js';
import { constrainAcceleration, constrainSteeringVelocity } from '../../../../src/core/physics/constraints.js';
import { F1TENTH_DEFAULT_PARAMS as P } from '../../../../src/core/physics/defaults.js';

describe('constrainAcceleration (accl_constraints)', () => {
  it.each([
    // [v, requested, expected, why]
    [1, 100, P.a_max, 'positive limit a_max below v_switch'],
    [P.v_switch, 100, P.a_max, 'still a_max exactly at v_switch'],
    [10, 100, (P.a_max * P.v_switch) / 10, 'reduced to a_max*v_switch/v above v_switch'],
    [19, 100, (P.a_max * P.v_switch) / 19, 'reduced further at higher speed'],
    [10, 1, 1, 'inside the limits passes through'],
    [10, -100, -P.a_max, 'braking limited to -a_max regardless of speed'],
    [1, -100, -P.a_max, 'braking limited to -a_max at low speed'],
    [P.v_max, 5, 0, 'no further acceleration at v_max'],
    [P.v_max + 1, 0.1, 0, 'none above v_max either'],
    [P.v_max, -3, -3, 'braking allowed at v_max'],
    [P.v_min, -3, 0, 'no further reverse acceleration at v_min'],
    [P.v_min, 3, 3, 'forward acceleration allowed at v_min'],
  ])('v=%d, a=%d -> %d (%s)', (v, requested, expected) => {
    expect(constrainAcceleration(v, requested, P)).toBe(expected);
  });
});

describe('constrainSteeringVelocity (steering_constraint)', () => {
  it.each([
    [0, 100, P.sv_max, 'clipped to sv_max'],
    [0, -100, P.sv_min, 'clipped to sv_min'],
    [0, 1.5, 1.5, 'passes through inside limits'],
    [P.s_max, 1, 0, 'zero at s_max when pushing further'],
    [P.s_max + 0.01, 1, 0, 'zero past s_max'],
    [P.s_max, -1, -1, 'may steer back from s_max'],
    [P.s_min, -1, 0, 'zero at s_min when pushing further'],
    [P.s_min, 1, 1, 'may steer back from s_min'],
  ])('steer=%d, sv=%d -> %d (%s)', (steer, requested, expected) => {
    expect(constrainSteeringVelocity(steer, requested, P)).toBe(expected);
  });
});

describe('command conversion (pid)', () => {
  it('steers bang-bang at sv_max in both directions, with a 1e-4 rad dead band', () => {
    expect(steeringVelocityForCommand(0.2, 0, P)).toBe(P.sv_max);
    expect(steeringVelocityForCommand(-0.2, 0, P)).toBe(-P.sv_max);
    expect(steeringVelocityForCommand(0.2, 0.2 - 0.5e-4, P)).toBe(0);
    expect(steeringVelocityForCommand(0.2, 0.2 - 2e-4, P)).toBe(P.sv_max);
  });

  it('uses gains 10*a_max/v_max and 10*a_max/-v_min moving forward', () => {
    expect(accelerationForCommand(6, 5, P)).toBeCloseTo(((10 * P.a_max) / P.v_max) * 1, 12);
    expect(accelerationForCommand(4, 5, P)).toBeCloseTo(((10 * P.a_max) / -P.v_min) * -1, 12);
  });

  it('uses gains 2*a_max/v_max and 2*a_max/-v_min when stopped or reversing', () => {
    expect(accelerationForCommand(1, 0, P)).toBeCloseTo((2 * P.a_max) / P.v_max, 12);
    expect(accelerationForCommand(-3, -2, P)).toBeCloseTo(((2 * P.a_max) / -P.v_min) * -1, 12);
    expect(accelerationForCommand(0, -2, P)).toBeCloseTo(((2 * P.a_max) / P.v_max) * 2, 12);
  });

  it('combines both', () => {
    expect(commandToDynamicsInputs(0, -0.3, { v: 10, steer: 0 }, P)).toEqual({
      accel: ((10 * P.a_max) / -P.v_min) * -10,
      steerVel: -P.sv_max,
    });
  });
});
