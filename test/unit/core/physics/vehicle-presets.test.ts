import { describe, expect, it } from 'vitest';
import { isLaterallyStable, isLaterallyStableAt } from '../../../../src/core/physics/lateral-stability.js';
import { checkVehicleParams } from '../../../../src/core/physics/vehicle-param-checks.js';
import {
  COMMONROAD_BMW_320I,
  COMMONROAD_FORD_ESCORT,
  COMMONROAD_VW_VANAGON,
  VEHICLE_PRESET_NAMES,
  VEHICLE_PRESETS,
} from '../../../../src/core/physics/vehicle-presets.js';
import { vehicleParamsSchema } from '../../../../src/scenario/schema.js';

const RK4_10MS = { timestep: 0.01, integrator: 'rk4' as const };

describe('CommonRoad vehicle parameter sets', () => {
  // CommonRoad's parameters_vehicle{1,2,3}.py in SI, converted by hand from its US units
  // (1 slug = 14.5939 kg, 1 ft = 0.3048 m, 1 slug ft² = 1.35582 kg m²).
  it.each([
    ['Ford Escort', COMMONROAD_FORD_ESCORT, { m: 1225.89, lf: 0.88392, lr: 1.50876, I: 1538.86, h: 0.59436, length: 4.298, width: 1.674 }],
    ['BMW 320i', COMMONROAD_BMW_320I, { m: 1093.3, lf: 1.1562, lr: 1.42272, I: 1791.6, h: 0.61373, length: 4.508, width: 1.61 }],
    ['VW Vanagon', COMMONROAD_VW_VANAGON, { m: 1478.9, lf: 1.15079, lr: 1.32114, I: 2473.1, h: 0.80449, length: 4.569, width: 1.844 }],
  ])('%s: mass, axle distances, yaw inertia, height and size as CommonRoad gives them', (_, p, expected) => {
    for (const [key, value] of Object.entries(expected)) expect(p[key as keyof typeof p]).toBeCloseTo(value, 1);
    // the single-track tyre of all three: mu = p_dy1, C_S = -p_ky1 / p_dy1
    expect(p.mu).toBe(1.0489);
    expect(p.C_Sf).toBeCloseTo(20.898, 3);
    expect(p.C_Sr).toBe(p.C_Sf);
    expect([p.sv_min, p.sv_max, p.a_max]).toEqual([-0.4, 0.4, 11.5]);
  });

  it('the BMW 320i has its yaw inertia ratio of 0.25 that parameter-ranges.ts quotes', () => {
    const p = COMMONROAD_BMW_320I;
    expect(p.I / (p.m * (p.lf + p.lr) ** 2)).toBeCloseTo(0.246, 3);
  });

  it.each(VEHICLE_PRESET_NAMES)('%s: the schema accepts every value and no combination is implausible at 10 ms', (name) => {
    const p = VEHICLE_PRESETS[name];
    expect(vehicleParamsSchema.safeParse(p).success).toBe(true);
    expect(checkVehicleParams(p, RK4_10MS)).toEqual([]);
  });

  it('a full-size car integrates stably at highway speed and parked, and only at 4 ms through the slow speeds', () => {
    for (const name of ['commonroad-ford-escort', 'commonroad-bmw-320i', 'commonroad-vw-vanagon'] as const) {
      const p = VEHICLE_PRESETS[name];
      for (const speed of [0, 15, 25, 35]) expect(isLaterallyStableAt(p, speed, 0.01, 'rk4')).toBe(true);
      // the yaw/slip modes grow as 1/v: stiff just above the kinematic switch (0.5 m/s)
      expect(isLaterallyStableAt(p, 0.6, 0.01, 'rk4')).toBe(false);
      expect(isLaterallyStable(p, 0.01, 'rk4')).toBe(false);
      expect(isLaterallyStable(p, 0.003, 'rk4')).toBe(true);
    }
  });
});
