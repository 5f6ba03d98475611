import type { IntegratorKind } from './integration.js';
import { type Complex, isLaterallyStable, type LateralParams, largestStableTimestep, worstLateralMode } from './lateral-stability.js';
import { INERTIA_RATIO, implausibleCombinations, PARAM_RANGES, type ParamProblem, round, roundDown, roundUp } from './parameter-ranges.js';
import type { VehicleParams } from './types.js';

export interface PhysicsSettings {
  timestep: number; // [s]
  integrator: IntegratorKind;
}

/**
 * What no real car has in one car's (merged) parameters: combinations out of range, an inertia
 * that does not fit the mass, a speed controller that overshoots more every step. Single values
 * out of PARAM_RANGES are the schema's to reject, before this runs.
 */
export function checkVehicleParams(p: VehicleParams, physics: PhysicsSettings): ParamProblem[] {
  const implausible = implausibleCombinations(p, physics.timestep);
  const inertia = implausibleInertia(p, physics);
  if (inertia) implausible.push(inertia);
  const chatter = speedControllerProblem(p, physics.timestep);
  if (chatter) implausible.push(chatter);
  return implausible;
}

/**
 * Whether the physics step may fail to integrate a plausible car's lateral dynamics, from a linear
 * analysis at low speed. A warning, not a refusal: f1tenth_gym runs such cars (its own defaults
 * with euler at 10 ms among them) to finite traces, and so must cavsim; a run whose state really
 * diverges fails, naming the car and the step.
 */
export function lateralStabilityWarning(p: VehicleParams, physics: PhysicsSettings): ParamProblem | undefined {
  return checkVehicleParams(p, physics).length ? undefined : lateralStabilityProblem(p, physics);
}

/**
 * The yaw inertia against the mass spread over the wheelbase (INERTIA_RATIO). The lower end of
 * the suggested range is raised to where this timestep still integrates the yaw motion stably.
 */
function implausibleInertia(p: VehicleParams, physics: PhysicsSettings): ParamProblem | undefined {
  const l = p.lf + p.lr;
  const low = INERTIA_RATIO.min * p.m * l * l;
  const high = INERTIA_RATIO.max * p.m * l * l;
  if (p.I >= low && p.I <= high) return undefined;
  const stableFrom = smallestStable(p, 'I', low, high, physics);
  const lowest = stableFrom !== undefined && stableFrom > low ? roundUp(stableFrom) : low;
  const atThisStep =
    lowest > low
      ? ` (below ${lowest} the yaw motion is too fast for ${physics.integrator} at physics.timestep ${round(physics.timestep * 1000)}ms)`
      : '';
  return {
    param: 'I',
    message:
      `${p.I} kg m² does not fit a car of m = ${p.m} kg with wheelbase lf + lr = ${round(l)} m ` +
      `(I/(m·(lf+lr)²) = ${round(p.I / (p.m * l * l))}, real cars 0.1-0.25); use I from ${roundUp(lowest)} to ${roundDown(high)} kg m²${atThisStep}`,
  };
}

/** Above this gain·timestep the discrete speed controller overshoots further each step than the error it corrects. */
const MAX_SPEED_GAIN_STEP = 2;

/**
 * f1tenth_gym's speed controller is proportional with gain 10·a_max/v_max (speeding up) or
 * 10·a_max/(−v_min) (slowing down), applied once per step. With gain·timestep ≥ 2 it overshoots
 * the commanded speed by more each step, held only by ±a_max: the speed then chatters by
 * a_max·timestep every step, across the 0.5 m/s model switch, and the yaw rate runs away.
 */
function speedControllerProblem(p: VehicleParams, timestep: number): ParamProblem | undefined {
  const slowest = Math.min(p.v_max, -p.v_min);
  const gain = (10 * p.a_max) / slowest;
  if (gain * timestep < MAX_SPEED_GAIN_STEP) return undefined;
  const which = slowest === p.v_max ? `10·a_max/v_max` : `10·a_max/(−v_min)`;
  return {
    param: 'a_max',
    message:
      `at physics.timestep ${round(timestep * 1000)}ms the speed controller (gain ${which} = ${round(gain)} 1/s) overshoots the commanded speed ` +
      `further every step (gain·timestep = ${round(gain * timestep)}, must stay below ${MAX_SPEED_GAIN_STEP}), so the speed chatters by ` +
      `${round(p.a_max * timestep)} m/s each step; use a_max below ${roundDown((MAX_SPEED_GAIN_STEP * slowest) / (10 * timestep))} m/s², ` +
      `or physics.timestep below ${roundDown(((MAX_SPEED_GAIN_STEP * slowest) / (10 * p.a_max)) * 1000)}ms`,
  };
}

/** The smallest physics.timestep the schema accepts [s]. */
const MIN_TIMESTEP = 1e-4;

function lateralStabilityProblem(p: VehicleParams, { timestep, integrator }: PhysicsSettings): ParamProblem | undefined {
  if (isLaterallyStable(p, timestep, integrator)) return undefined;
  const worst = worstLateralMode(p, timestep, integrator);
  const fixes: string[] = [];
  const dtMax = largestStableTimestep(p, integrator, timestep);
  if (dtMax >= MIN_TIMESTEP) fixes.push(`physics.timestep: ${floorMs(dtMax)} or less`);
  if (integrator === 'euler' && isLaterallyStable(p, timestep, 'rk4')) fixes.push('physics.integrator: rk4');
  const l = p.lf + p.lr;
  const iMin = smallestStable(p, 'I', p.I, INERTIA_RATIO.max * p.m * l * l, { timestep, integrator });
  if (iMin !== undefined) fixes.push(`I of at least ${roundUp(iMin)} kg m²`);
  for (const key of ['C_Sf', 'C_Sr'] as const) {
    const max = largestStable(p, key, PARAM_RANGES[key].min, p[key], { timestep, integrator });
    if (max !== undefined) fixes.push(`${key} of at most ${roundDown(max)} 1/rad`);
  }
  return {
    message:
      `at ${round(worst.speed)} m/s this car's yaw/slip dynamics have a mode λ = ${showEigenvalue(worst.eigenvalue)} 1/s ` +
      `(time constant ${round(1000 / Math.hypot(worst.eigenvalue.re, worst.eigenvalue.im))} ms), too fast for ${integrator} ` +
      `at physics.timestep ${round(timestep * 1000)}ms: each step multiplies it by ${round(worst.amplification)} instead of damping it, ` +
      `so the state may diverge (the run then fails, naming the car and the step); ${fixes.length ? `to be safe use ${fixes.join(', or ')}` : 'no timestep down to 0.1ms is small enough; use parameters nearer a real car (docs/physics.md, "Parameter ranges")'}`,
  };
}

type Tunable = keyof Pick<LateralParams, 'I' | 'C_Sf' | 'C_Sr'>;

/** The least value of `key` in [from, to] that is stable (stability grows with it), if any. */
const smallestStable = (p: VehicleParams, key: Tunable, from: number, to: number, physics: PhysicsSettings) =>
  stableEdge(stableWith(p, key, physics), from, to, true);

/** The greatest value of `key` in [from, to] that is stable (stability falls as it grows), if any. */
const largestStable = (p: VehicleParams, key: Tunable, from: number, to: number, physics: PhysicsSettings) =>
  stableEdge(stableWith(p, key, physics), from, to, false);

const stableWith = (p: VehicleParams, key: Tunable, physics: PhysicsSettings) => (v: number) =>
  isLaterallyStable({ ...p, [key]: v }, physics.timestep, physics.integrator);

/** Geometric bisection, to 0.1 %, for the edge of the stable part of [from, to]; it lies above the edge when `stableAbove`. */
function stableEdge(stable: (v: number) => boolean, from: number, to: number, stableAbove: boolean): number | undefined {
  let [good, bad] = stableAbove ? [to, from] : [from, to];
  if (!(to > from) || !stable(good)) return undefined;
  if (stable(bad)) return bad;
  while (Math.max(good, bad) / Math.min(good, bad) > 1.001) {
    const mid = Math.sqrt(good * bad);
    if (stable(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

function showEigenvalue(z: Complex): string {
  return z.im === 0 ? `${round(z.re)}` : `${round(z.re)} ± ${round(Math.abs(z.im))}i`;
}

/** A timestep in ms, rounded down to two significant digits, as a scenario would write it. */
function floorMs(seconds: number): string {
  return `${roundDown(seconds * 1000)}ms`;
}
