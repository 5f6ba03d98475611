import { describe, expect, it } from 'vitest';
import { F1TENTH_DEFAULT_PARAMS as P } from '../../../../src/core/physics/defaults.js';
import { singleTrackDerivatives } from '../../../../src/core/physics/dynamics.js';
import type { IntegratorKind } from '../../../../src/core/physics/integration.js';
import {
  type Complex,
  isLaterallyStable,
  largestStableTimestep,
  lateralEigenvalues,
  stepAmplification,
} from '../../../../src/core/physics/lateral-stability.js';
import type { VehicleParams } from '../../../../src/core/physics/types.js';
import { createInitialState, VehicleModel } from '../../../../src/core/physics/vehicle-model.js';

/** CommonRoad vehicle 2 (BMW 320i), the full-size car f1tenth_gym's parameters were scaled from. */
const BMW_320I: VehicleParams = {
  ...P,
  C_Sf: 20.89,
  C_Sr: 20.89,
  lf: 1.156,
  lr: 1.422,
  h: 0.574,
  m: 1093.3,
  I: 1791.6,
  s_min: -1.066,
  s_max: 1.066,
  sv_min: -0.4,
  sv_max: 0.4,
  a_max: 11.5,
  v_min: -13.9,
  v_max: 45.8,
};

/** Eigenvalues of the (yawRate, slip) rows of the real vector field; they are linear in both, so differences are exact. */
function jacobianEigenvalues(p: VehicleParams, v: number, accel: number): Complex[] {
  const base = { x: 0, y: 0, steer: 0, v, yaw: 0, yawRate: 0, slip: 0 };
  const f0 = singleTrackDerivatives(base, accel, 0, p);
  const fr = singleTrackDerivatives({ ...base, yawRate: 1 }, accel, 0, p);
  const fb = singleTrackDerivatives({ ...base, slip: 1 }, accel, 0, p);
  const [a11, a21, a12, a22] = [fr.yawRate - f0.yawRate, fr.slip - f0.slip, fb.yawRate - f0.yawRate, fb.slip - f0.slip];
  const half = (a11 + a22) / 2;
  const disc = half * half - (a11 * a22 - a12 * a21);
  return disc >= 0
    ? [
        { re: half + Math.sqrt(disc), im: 0 },
        { re: half - Math.sqrt(disc), im: 0 },
      ]
    : [
        { re: half, im: Math.sqrt(-disc) },
        { re: half, im: -Math.sqrt(-disc) },
      ];
}

/** Cruises at `speed` with full-lock steering sweeps; true when the state stays finite and the yaw rate below 100 rad/s. */
function staysSane(p: VehicleParams, timestep: number, integrator: IntegratorKind, speed: number, seconds = 5): boolean {
  const model = new VehicleModel(p, createInitialState({ x: 0, y: 0, yaw: 0, speed }), { timestep, integrator });
  for (let i = 1; i * timestep <= seconds; i++) {
    const s = model.step({ speed, steer: (i * timestep) % 1 < 0.5 ? p.s_max : p.s_min });
    if (![s.x, s.y, s.yaw, s.v, s.yawRate, s.slip].every(Number.isFinite) || Math.abs(s.yawRate) > 100) return false;
  }
  return true;
}

describe('lateral eigenvalues', () => {
  it.each([
    ['f1tenth defaults', P, 0.5, 0],
    ['f1tenth defaults', P, 3, P.a_max],
    ['f1tenth defaults', P, 15, -P.a_max],
    ['BMW 320i', BMW_320I, 0.7, 5],
    ['BMW 320i', BMW_320I, 30, 0],
  ])('%s at %s m/s, a = %s: agree with the Jacobian of the vector field', (_name, p, v, accel) => {
    const expected = jacobianEigenvalues(p, v, accel);
    const got = lateralEigenvalues(p, v, accel);
    const key = (z: Complex) => z.re * 1e6 + z.im;
    expected.sort((a, b) => key(a) - key(b));
    got.sort((a, b) => key(a) - key(b));
    for (let i = 0; i < 2; i++) {
      const scale = Math.hypot(expected[i].re, expected[i].im);
      expect(Math.abs(got[i].re - expected[i].re)).toBeLessThan(1e-9 * scale);
      expect(Math.abs(got[i].im - expected[i].im)).toBeLessThan(1e-9 * scale);
    }
  });
});

describe('step amplification', () => {
  it.each([
    ['euler', { re: -2, im: 0 }, 1],
    ['euler', { re: -1, im: 0 }, 0],
    ['rk4', { re: -2.785293563405282, im: 0 }, 1], // where RK4's region ends on the real axis
    ['rk4', { re: 0, im: 2 * Math.SQRT2 }, 1], // and on the imaginary axis
    ['rk4', { re: -1, im: 0 }, 0.375],
  ] as const)('%s at z = %o is %s', (kind, z, expected) => {
    expect(stepAmplification(kind, z)).toBeCloseTo(expected, 9);
  });
});

describe('stable timesteps, and what happens past them', () => {
  it("f1tenth_gym's own setting (rk4, 10 ms) is stable for its car, with about 1 % to spare", () => {
    expect(isLaterallyStable(P, 0.01, 'rk4')).toBe(true);
    expect(largestStableTimestep(P, 'rk4', 0.1)).toBeCloseTo(0.0101, 4);
  });

  it('euler at 10 ms is not: the car diverges crawling at 0.52 m/s, and is fine at the suggested 7.2 ms', () => {
    expect(isLaterallyStable(P, 0.01, 'euler')).toBe(false);
    expect(largestStableTimestep(P, 'euler', 0.1)).toBeCloseTo(0.00725, 5);
    expect(staysSane(P, 0.01, 'euler', 0.52)).toBe(false);
    expect(staysSane(P, 0.0072, 'euler', 0.52)).toBe(true);
  });

  it('a full-size car needs about 4 ms with rk4; at 10 ms it diverges', () => {
    const dtMax = largestStableTimestep(BMW_320I, 'rk4', 0.1);
    expect(dtMax).toBeCloseTo(0.00409, 5);
    expect(staysSane(BMW_320I, 0.01, 'rk4', 0.6)).toBe(false);
    for (const speed of [0.51, 0.6, 1, 5, 30]) expect(staysSane(BMW_320I, dtMax, 'rk4', speed)).toBe(true);
  });
});
