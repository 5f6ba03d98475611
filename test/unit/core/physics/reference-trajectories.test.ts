import { describe, expect, it } from 'vitest';
import { F1TENTH_DEFAULT_PARAMS } from '../../../../src/core/physics/defaults.js';
import { singleTrackDerivatives } from '../../../../src/core/physics/dynamics.js';
import type { VehicleParams } from '../../../../src/core/physics/types.js';
import { createInitialState, VehicleModel } from '../../../../src/core/physics/vehicle-model.js';
import { REFERENCE_COMMANDS, REFERENCE_RUNS } from './f1tenth-gym-reference.js';

const FIELDS = ['x', 'y', 'steer', 'v', 'yaw', 'yawRate', 'slip'] as const;

describe('trajectories agree with f1tenth_gym run from its own source', () => {
  for (const run of REFERENCE_RUNS) {
    it(run.name, () => {
      const [x, y, yaw] = run.pose;
      const model = new VehicleModel(F1TENTH_DEFAULT_PARAMS, createInitialState({ x, y, yaw, speed: run.v0 }), {
        integrator: run.integrator,
      });
      const command = REFERENCE_COMMANDS[run.name];
      const lastStep = run.samples[run.samples.length - 1].step;
      const expectedByStep = new Map(run.samples.map((s) => [s.step, s.state]));
      for (let k = 0; k < lastStep; k++) {
        const state = model.step(command(k));
        const expected = expectedByStep.get(k + 1);
        if (!expected) continue;
        FIELDS.forEach((field, i) => {
          // Same operations in the same order; only Math.sin/cos/tan/pow may differ from libm in
          // the last bit (observed worst: 2e-16 relative), hence a small relative bound.
          const tolerance = 1e-12 * Math.max(1, Math.abs(expected[i]));
          expect(Math.abs(state[field] - expected[i]), `step ${k + 1} ${field}`).toBeLessThanOrEqual(tolerance);
        });
      }
    });
  }
});

describe('derivatives agree with the ground truth in f1tenth_gym dynamic_models.py DynamicsTest', () => {
  // CommonRoad vehicle 1 parameters as set up in that test (not the F110 defaults).
  const params: VehicleParams = {
    mu: 1.0489,
    C_Sf: 21.92 / 1.0489,
    C_Sr: 21.92 / 1.0489,
    lf: 0.3048 * 3.793293,
    lr: 0.3048 * 4.667707,
    h: 0.3048 * 2.01355,
    m: (4.4482216152605 / 0.3048) * 74.91452,
    I: 4.4482216152605 * 0.3048 * 1321.416,
    s_min: -1.066,
    s_max: 1.066,
    sv_min: -0.4,
    sv_max: 0.4,
    v_min: -13.6,
    v_max: 50.8,
    v_switch: 7.319,
    a_max: 11.5,
    width: 1.674,
    length: 4.298,
  };
  const accel = 0.63 * 9.81;
  const steerVel = 0.15;

  it('dynamic single-track', () => {
    const [x, y, steer, v, yaw, yawRate, slip] = [
      2.0233348142065677, 0.0041907137716636, 0.0197545248559617, 15.7216236334290116, 0.0025857914776859, 0.0529001056654038,
      0.0033012170610298,
    ];
    const d = singleTrackDerivatives({ x, y, steer, v, yaw, yawRate, slip }, accel, steerVel, params);
    const expected = [
      15.7213512030862397, 0.0925527979719355, 0.15, 5.3536773276413925, 0.0529001056654038, 0.6435589397748606, 0.0313297971641291,
    ];
    FIELDS.forEach((field, i) => expect(d[field]).toBeCloseTo(expected[i], 12));
  });

  it('acceleration above v_switch is cut to a_max*v_switch/v in that ground truth', () => {
    const v = 15.7216236334290116;
    const d = singleTrackDerivatives({ x: 0, y: 0, steer: 0.02, v, yaw: 0, yawRate: 0, slip: 0 }, accel, steerVel, params);
    expect(d.v).toBeCloseTo((11.5 * 7.319) / v, 14);
  });
});
