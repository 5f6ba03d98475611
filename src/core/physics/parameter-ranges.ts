import { GRAVITY } from './model-constants.js';
import type { VehicleParams } from './types.js';

/**
 * Ranges of single vehicle parameters that a real car, from a 1:28 model to a large van, falls
 * within. The scenario schema enforces them; docs/physics.md ("Parameter ranges") says why each.
 */
export const PARAM_RANGES = {
  m: { min: 0.1, max: 5000, unit: 'kg', what: 'a 1:28 model car to a large van' },
  lf: { min: 0.01, max: 5, unit: 'm', what: 'the centre of gravity lies between the axles, at least 1 cm from each' },
  lr: { min: 0.01, max: 5, unit: 'm', what: 'the centre of gravity lies between the axles, at least 1 cm from each' },
  C_Sf: { min: 0.1, max: 50, unit: '1/rad', what: 'lateral force per unit load per radian of slip; real tyres lie within 3 to 30' },
  C_Sr: { min: 0.1, max: 50, unit: '1/rad', what: 'lateral force per unit load per radian of slip; real tyres lie within 3 to 30' },
  s_min: { min: -1.2, max: 0, unit: 'rad', what: 'the wheels turn at most about 70° either way' },
  s_max: { min: 0, max: 1.2, unit: 'rad', what: 'the wheels turn at most about 70° either way' },
  v_min: { min: -150, max: 0, unit: 'm/s', what: 'the reverse speed limit; below 0, as the speed controller divides by it' },
} as const;

export type RangedParam = keyof typeof PARAM_RANGES;

/** The message a value outside PARAM_RANGES gets. */
export function rangeMessage(param: RangedParam): string {
  const r = PARAM_RANGES[param];
  return `is out of range; use a value from ${r.min} to ${r.max} ${r.unit} (${r.what})`;
}

/**
 * I / (m·(lf+lr)²), the yaw inertia relative to the mass spread over the wheelbase. Real cars
 * lie near 0.1-0.25 (f1tenth_gym 0.12, CommonRoad's BMW 320i 0.25; a uniform rod as long as the
 * wheelbase 1/12, all mass at the axles 0.25), so a factor of about 5 either side is allowed.
 */
export const INERTIA_RATIO = { min: 0.02, max: 1 } as const;

/** lr / (lf+lr), the share of the weight the front axle carries: road and race cars carry 35-65 %. */
export const FRONT_WEIGHT_SHARE = { min: 0.2, max: 0.8 } as const;

/**
 * The steering angle may overshoot its limit by one step of sv_max (as in f1tenth_gym). Past
 * this angle (80°) tan δ in the kinematic model exceeds 5.8 and heads to infinity at 90°.
 * A step is also held to the steering limit itself, or bang-bang steering only chatters.
 */
export const MAX_STEER_REACH = 1.4;

export interface ParamProblem {
  /** The parameter to change; absent when the combination is at fault. */
  param?: keyof VehicleParams;
  message: string;
}

/** Relations between geometry, loads, tyres and steering that every real car satisfies. */
export function implausibleCombinations(p: VehicleParams, timestep: number): ParamProblem[] {
  const problems: ParamProblem[] = [];
  const l = p.lf + p.lr;
  const frontShare = p.lr / l;
  if (frontShare < FRONT_WEIGHT_SHARE.min || frontShare > FRONT_WEIGHT_SHARE.max) {
    problems.push({
      param: 'lf',
      message:
        `lf = ${p.lf} m and lr = ${p.lr} m put ${Math.round(frontShare * 100)} % of the weight on the front axle (real cars 35-65 %); ` +
        `use lf from ${roundUp((1 - FRONT_WEIGHT_SHARE.max) * l)} to ${roundDown((1 - FRONT_WEIGHT_SHARE.min) * l)} m for this wheelbase`,
    });
  }
  // Longitudinal load transfer: the model's axle loads are g·lr − a·h and g·lf + a·h.
  const liftLimit = GRAVITY * Math.min(p.lf, p.lr);
  if (!problems.length && p.a_max * p.h >= liftLimit) {
    problems.push({
      param: 'h',
      message:
        `with h = ${p.h} m and a_max = ${p.a_max} m/s², full acceleration or braking lifts an axle off the ground ` +
        `(a_max·h must be below g·min(lf, lr) = ${round(liftLimit)}); use h below ${roundDown(liftLimit / p.a_max)} m or a_max below ${roundDown(liftLimit / p.h)} m/s²`,
    });
  }
  const criticalSpeed = oversteerCriticalSpeed(p);
  if (criticalSpeed < p.v_max) {
    const headroom = p.v_max ** 2 - p.mu * GRAVITY * l * p.C_Sr;
    problems.push({
      param: 'C_Sf',
      message:
        `C_Sf = ${p.C_Sf} above C_Sr = ${p.C_Sr} makes the car oversteer so much that above ${round(criticalSpeed)} m/s it spins out ` +
        `even driving straight (the model's tyres never saturate, so the spin grows without bound); ` +
        `use C_Sf of at most ${roundDown((p.v_max ** 2 * p.C_Sr) / headroom)} 1/rad, or v_max of at most ${roundDown(criticalSpeed)} m/s`,
    });
  }
  const lock = Math.max(p.s_max, -p.s_min);
  const allowedStep = Math.min(lock, MAX_STEER_REACH - lock);
  if (p.sv_max * timestep > allowedStep) {
    problems.push({
      param: 'sv_max',
      message:
        `one physics step at ${p.sv_max} rad/s turns the wheels ${round(p.sv_max * timestep)} rad: the bang-bang steering chatters by that much ` +
        `around every target and overshoots the ${round(lock)} rad limit to ${round(lock + p.sv_max * timestep)} rad (a step may turn them at most ` +
        `the limit itself, and no further than ${MAX_STEER_REACH} rad in all, where tan δ blows up); use sv_max of at most ` +
        `${roundDown(allowedStep / timestep)} rad/s or physics.timestep below ${roundDown((allowedStep / p.sv_max) * 1000)}ms`,
    });
  }
  return problems;
}

/**
 * The speed above which an oversteering car (C_Sf > C_Sr, i.e. lf·Kf > lr·Kr) is unstable when
 * cruising: v² = μ·g·(lf+lr)·C_Sf·C_Sr/(C_Sf − C_Sr), where the yaw/slip determinant changes sign.
 * Infinite for a neutral or understeering car.
 */
export function oversteerCriticalSpeed(p: Pick<VehicleParams, 'mu' | 'C_Sf' | 'C_Sr' | 'lf' | 'lr'>): number {
  if (p.C_Sf <= p.C_Sr) return Infinity;
  return Math.sqrt((p.mu * GRAVITY * (p.lf + p.lr) * p.C_Sf * p.C_Sr) / (p.C_Sf - p.C_Sr));
}

/** Three significant digits, for messages. */
export function round(v: number): number {
  return Number(v.toPrecision(3));
}

/** Two significant digits, rounded down: a suggested upper bound that is itself allowed. */
export function roundDown(v: number): number {
  const unit = 10 ** (Math.floor(Math.log10(v)) - 1);
  return +(Math.floor(v / unit) * unit).toPrecision(2);
}

/** Two significant digits, rounded up: a suggested lower bound that is itself allowed. */
export function roundUp(v: number): number {
  const unit = 10 ** (Math.floor(Math.log10(v)) - 1);
  return +(Math.ceil(v / unit) * unit).toPrecision(2);
}
