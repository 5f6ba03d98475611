import type { IntegratorKind } from './integration.js';
import { GRAVITY, KINEMATIC_SWITCH_SPEED } from './model-constants.js';
import type { VehicleParams } from './types.js';

export type LateralParams = Pick<VehicleParams, 'mu' | 'C_Sf' | 'C_Sr' | 'lf' | 'lr' | 'h' | 'm' | 'I' | 'a_max' | 'v_switch' | 'v_max'>;

export interface Complex {
  re: number;
  im: number;
}

/**
 * Eigenvalues [1/s] of the yaw-rate/slip rows of the dynamic single-track model at speed v and
 * longitudinal acceleration a. With the axle cornering stiffnesses [N/rad]
 * Kf = μ·C_Sf·m·(g·lr − a·h)/l and Kr = μ·C_Sr·m·(g·lf + a·h)/l the rows are
 *   ψ̈ = −(lf²Kf + lr²Kr)/(I v)·ψ̇ + (lr Kr − lf Kf)/I·β
 *   β̇ = ((lr Kr − lf Kf)/(m v²) − 1)·ψ̇ − (Kf + Kr)/(m v)·β
 * Both eigenvalues grow as 1/v, so they are largest at the slowest dynamic speed, 0.5 m/s.
 */
export function lateralEigenvalues(p: LateralParams, v: number, a = 0): [Complex, Complex] {
  const l = p.lf + p.lr;
  const kf = (p.mu * p.C_Sf * p.m * (GRAVITY * p.lr - a * p.h)) / l;
  const kr = (p.mu * p.C_Sr * p.m * (GRAVITY * p.lf + a * p.h)) / l;
  const a11 = -(p.lf ** 2 * kf + p.lr ** 2 * kr) / (p.I * v);
  const a12 = (p.lr * kr - p.lf * kf) / p.I;
  const a21 = (p.lr * kr - p.lf * kf) / (p.m * v * v) - 1;
  const a22 = -(kf + kr) / (p.m * v);
  const halfTrace = (a11 + a22) / 2;
  const disc = halfTrace * halfTrace - (a11 * a22 - a12 * a21);
  if (disc >= 0) {
    const root = Math.sqrt(disc);
    return [
      { re: halfTrace + root, im: 0 },
      { re: halfTrace - root, im: 0 },
    ];
  }
  const root = Math.sqrt(-disc);
  return [
    { re: halfTrace, im: root },
    { re: halfTrace, im: -root },
  ];
}

/** |R(z)|: how much one integrator step multiplies a mode y' = λy, with z = λ·dt. Above 1 it grows. */
export function stepAmplification(kind: IntegratorKind, z: Complex): number {
  if (kind === 'euler') return Math.hypot(1 + z.re, z.im);
  // RK4: R(z) = 1 + z + z²/2 + z³/6 + z⁴/24, evaluated by Horner's rule in complex arithmetic.
  let re = 1 / 24;
  let im = 0;
  for (const c of [1 / 6, 1 / 2, 1, 1]) {
    const nextRe = re * z.re - im * z.im + c;
    im = re * z.im + im * z.re;
    re = nextRe;
  }
  return Math.hypot(re, im);
}

/** The mode that an integrator step amplifies most, over the speeds the dynamic model runs at. */
export interface WorstMode {
  speed: number; // [m/s]
  accel: number; // [m/s^2]
  eigenvalue: Complex; // [1/s]
  amplification: number; // per step; above 1 the numerical solution grows where the car's does not
}

const SPEED_SAMPLES = 200;

/**
 * Scans speeds from 0.5 m/s (below it the kinematic model runs) up to v_max, cruising and at
 * full acceleration and braking (a car with a small a_max accelerates through the slow speeds
 * for many steps, with load shifted to the rear), and returns the physically decaying mode
 * (Re λ < 0) that one step of the integrator amplifies most. A physically growing mode (a car
 * braking hard in a turn, an oversteering one past its critical speed) is the model's real
 * behaviour, not a numerical artefact, and is left out.
 */
export function worstLateralMode(p: LateralParams, dt: number, kind: IntegratorKind): WorstMode {
  const low = KINEMATIC_SWITCH_SPEED;
  const high = Math.max(p.v_max, low);
  let worst: WorstMode = { speed: low, accel: 0, eigenvalue: { re: 0, im: 0 }, amplification: 0 };
  for (let i = 0; i < SPEED_SAMPLES; i++) {
    const atSpeed = worstLateralModeAt(p, low * (high / low) ** (i / (SPEED_SAMPLES - 1)), dt, kind);
    if (atSpeed.amplification > worst.amplification) worst = atSpeed;
  }
  return worst;
}

/** worstLateralMode at one speed: for a car that keeps it (cruising traffic). */
export function worstLateralModeAt(p: LateralParams, speed: number, dt: number, kind: IntegratorKind): WorstMode {
  let worst: WorstMode = { speed, accel: 0, eigenvalue: { re: 0, im: 0 }, amplification: 0 };
  const fullThrottle = speed > p.v_switch ? (p.a_max * p.v_switch) / speed : p.a_max;
  for (const accel of [0, fullThrottle, -p.a_max]) {
    for (const eigenvalue of lateralEigenvalues(p, speed, accel)) {
      if (!(eigenvalue.re < 0)) continue;
      const amplification = stepAmplification(kind, { re: eigenvalue.re * dt, im: eigenvalue.im * dt });
      if (amplification > worst.amplification) worst = { speed, accel, eigenvalue, amplification };
    }
  }
  return worst;
}

/** Rounding slack: a step that amplifies by less than this is taken as stable. */
const AMPLIFICATION_TOLERANCE = 1 + 1e-9;

export function isLaterallyStable(p: LateralParams, dt: number, kind: IntegratorKind): boolean {
  return worstLateralMode(p, dt, kind).amplification <= AMPLIFICATION_TOLERANCE;
}

/** Stable at one speed: below KINEMATIC_SWITCH_SPEED (parked) the kinematic model runs, always stable. */
export function isLaterallyStableAt(p: LateralParams, speed: number, dt: number, kind: IntegratorKind): boolean {
  return (
    Math.abs(speed) < KINEMATIC_SWITCH_SPEED || worstLateralModeAt(p, Math.abs(speed), dt, kind).amplification <= AMPLIFICATION_TOLERANCE
  );
}

/** The largest timestep in (0, upTo] at which the lateral dynamics integrate stably (0 if none from 1 µs). */
export function largestStableTimestep(p: LateralParams, kind: IntegratorKind, upTo: number): number {
  if (isLaterallyStable(p, upTo, kind)) return upTo;
  let stable = 1e-6;
  if (!isLaterallyStable(p, stable, kind)) return 0;
  let unstable = upTo;
  while (unstable / stable > 1.0001) {
    const mid = Math.sqrt(stable * unstable);
    if (isLaterallyStable(p, mid, kind)) stable = mid;
    else unstable = mid;
  }
  return stable;
}
