import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { F1TENTH_DEFAULT_PARAMS as P } from '../../../../src/core/physics/defaults.js';
import type { IntegratorKind } from '../../../../src/core/physics/integration.js';
import { oversteerCriticalSpeed } from '../../../../src/core/physics/parameter-ranges.js';
import type { VehicleParams } from '../../../../src/core/physics/types.js';
import { createInitialState, VehicleModel } from '../../../../src/core/physics/vehicle-model.js';
import { checkVehicleParams, lateralStabilityWarning } from '../../../../src/core/physics/vehicle-param-checks.js';
import { vehicleParamsSchema } from '../../../../src/scenario/schema.js';

const RK4_10MS = { timestep: 0.01, integrator: 'rk4' as const };

describe('checkVehicleParams', () => {
  it('accepts f1tenth_gym defaults at 10 ms and 1 ms', () => {
    expect(checkVehicleParams(P, RK4_10MS)).toEqual([]);
    expect(checkVehicleParams(P, { timestep: 0.001, integrator: 'rk4' })).toEqual([]);
    expect(checkVehicleParams(P, { timestep: 0.001, integrator: 'euler' })).toEqual([]);
  });

  it.each<[string, Partial<VehicleParams>, keyof VehicleParams | undefined, RegExp]>([
    [
      'a yaw inertia 470 times too small',
      { I: 0.0001 },
      'I',
      /^0\.0001 kg m² does not fit .*; use I from 0\.047 to 0\.4 kg m² \(below 0\.047 the yaw motion is too fast for rk4 at physics\.timestep 10ms\)$/,
    ],
    [
      'a million-fold too small inertia on a heavy car',
      { m: 100000, I: 1e-9 },
      'I',
      /use I from 1300 to 10000 kg m² \(below 1300 the yaw motion is too fast for rk4 at physics\.timestep 10ms\)$/,
    ],
    [
      'a centre of gravity on the front axle',
      { lf: 1e-300 },
      'lf',
      /put 100 % of the weight on the front axle \(real cars 35-65 %\); use lf from 0\.035 to 0\.13 m for this wheelbase$/,
    ],
    [
      'a centre of gravity so high the car tips',
      { h: 0.2 },
      'h',
      /lifts an axle off the ground .*; use h below 0\.16 m or a_max below 7\.7 m\/s²$/,
    ],
    [
      'a steering rate that jumps past 80°',
      { sv_max: 200 },
      'sv_max',
      /overshoots the 0\.419 rad limit to 2\.42 rad .*; use sv_max of at most 41 rad\/s or physics\.timestep below 2ms$/,
    ],
    [
      'a steering step wider than the lock',
      { s_min: -0.01, s_max: 0.01, sv_max: 98 },
      'sv_max',
      /turns the wheels 0\.98 rad: .*; use sv_max of at most 1 rad\/s or physics\.timestep below 0\.1ms$/,
    ],
    [
      'front tyres much stiffer than the rear',
      { C_Sf: 10 },
      'C_Sf',
      /above 6\.39 m\/s it spins out even driving straight .*; use C_Sf of at most 5\.7 1\/rad, or v_max of at most 6\.3 m\/s$/,
    ],
    [
      'a speed controller that chatters',
      { a_max: 50, v_max: 2, h: 0 },
      'a_max',
      /gain 10·a_max\/v_max = 250 1\/s\) overshoots .*; use a_max below 40 m\/s², or physics\.timestep below 8ms$/,
    ],
  ])('refuses %s', (_name, change, param, message) => {
    const problems = checkVehicleParams({ ...P, ...change }, RK4_10MS);
    expect(problems).toHaveLength(1);
    expect(problems[0].param).toBe(param);
    expect(problems[0].message).toMatch(message);
  });
});

describe('lateralStabilityWarning: a step that may not integrate a plausible car is said, not refused', () => {
  it.each<[string, Partial<VehicleParams>, RegExp]>([
    [
      'tyres too stiff for the timestep',
      { C_Sf: 40, C_Sr: 40 },
      /^at 0\.5 m\/s this car's yaw\/slip dynamics have a mode λ = -2060 1\/s .*too fast for rk4 at physics\.timestep 10ms: .* so the state may diverge \(the run then fails, naming the car and the step\); to be safe use physics\.timestep: 1\.3ms or less$/,
    ],
    [
      'tyres too stiff for any timestep',
      { C_Sf: 1000, C_Sr: 1000 },
      /so the state may diverge .*; no timestep down to 0\.1ms is small enough; use parameters nearer a real car/,
    ],
  ])('%s', (_name, change, message) => {
    expect(checkVehicleParams({ ...P, ...change }, RK4_10MS)).toEqual([]);
    expect(lateralStabilityWarning({ ...P, ...change }, RK4_10MS)?.message).toMatch(message);
  });

  it("f1tenth_gym's own defaults with euler at 10 ms (what the gym runs) are accepted, with the advice", () => {
    expect(checkVehicleParams(P, { timestep: 0.01, integrator: 'euler' })).toEqual([]);
    expect(lateralStabilityWarning(P, { timestep: 0.01, integrator: 'euler' })?.message).toMatch(
      /^at 0\.5 m\/s this car's yaw\/slip dynamics have a mode λ = -276 1\/s .* to be safe use physics\.timestep: 7\.2ms or less, or physics\.integrator: rk4, or I of at least 0\.072 kg m²$/,
    );
    expect(lateralStabilityWarning(P, { timestep: 0.0072, integrator: 'euler' })).toBeUndefined();
    expect(lateralStabilityWarning({ ...P, I: 0.072 }, { timestep: 0.01, integrator: 'euler' })).toBeUndefined();
    expect(lateralStabilityWarning(P, RK4_10MS)).toBeUndefined();
  });

  it('suggests C_Sf and C_Sr limits that work', () => {
    const stiff = { ...P, C_Sf: 40, C_Sr: 40 };
    const warning = lateralStabilityWarning(stiff, RK4_10MS)!;
    const timestep = Number(/physics\.timestep: ([\d.]+)ms/.exec(warning.message)![1]) / 1000;
    expect(lateralStabilityWarning(stiff, { timestep, integrator: 'rk4' })).toBeUndefined();
  });

  it('knows the critical speed of an oversteering car', () => {
    // v² = μ g l C_Sf C_Sr / (C_Sf − C_Sr)
    expect(oversteerCriticalSpeed({ ...P, C_Sf: 10 })).toBeCloseTo(Math.sqrt((1.0489 * 9.81 * 0.3302 * 10 * 5.4562) / (10 - 5.4562)), 12);
    expect(oversteerCriticalSpeed(P)).toBe(Infinity);
  });
});

/** Log-uniform in [lo, hi]: parameters span orders of magnitude. */
const logUniform = (lo: number, hi: number) => fc.double({ min: 0, max: 1, noNaN: true }).map((u) => lo * (hi / lo) ** u);

const vehicleArbitrary = fc
  .record({
    mu: logUniform(0.01, 5),
    C_Sf: logUniform(0.1, 50),
    C_Sr: logUniform(0.1, 50),
    lf: logUniform(0.01, 5),
    lr: logUniform(0.01, 5),
    h: fc.double({ min: 0, max: 2, noNaN: true }),
    m: logUniform(0.1, 5000),
    inertiaRatio: logUniform(0.02, 1),
    s_min: logUniform(0.01, 1.2).map((v) => -v),
    s_max: logUniform(0.01, 1.2),
    sv_min: logUniform(0.01, 100).map((v) => -v),
    sv_max: logUniform(0.01, 100),
    v_switch: logUniform(0.1, 100),
    a_max: logUniform(0.1, 100),
    v_min: logUniform(0.1, 150).map((v) => -v),
    v_max: logUniform(1, 150),
  })
  .map(({ inertiaRatio, ...p }): VehicleParams => ({ ...p, I: inertiaRatio * p.m * (p.lf + p.lr) ** 2, width: 0.3, length: 0.5 }));

describe('every car validation accepts without a stability warning integrates sanely', () => {
  it('2 s of full throttle with full-lock steering sweeps stays finite, below v_max and below 100 rad/s of yaw', () => {
    fc.assert(
      fc.property(
        vehicleArbitrary,
        fc.constantFrom(0.01, 0.001),
        fc.constantFrom<IntegratorKind>('rk4', 'euler'),
        (p, timestep, integrator) => {
          fc.pre(
            vehicleParamsSchema.safeParse(p).success &&
              checkVehicleParams(p, { timestep, integrator }).length === 0 &&
              !lateralStabilityWarning(p, { timestep, integrator }),
          );
          const model = new VehicleModel(p, createInitialState({ x: 0, y: 0, yaw: 0 }), { timestep, integrator });
          for (let i = 1; i * timestep <= 2; i++) {
            const s = model.step({ speed: p.v_max, steer: (i * timestep) % 0.5 < 0.25 ? p.s_max : p.s_min });
            const sane =
              [s.x, s.y, s.yaw, s.steer, s.v, s.yawRate, s.slip].every(Number.isFinite) &&
              s.v <= p.v_max + p.a_max * timestep &&
              Math.abs(s.yawRate) < 100;
            if (!sane) expect.fail(`at t=${i * timestep} s: ${JSON.stringify(s)}`);
          }
        },
      ),
      { seed: 20240611, numRuns: 100 },
    );
  });
});
