import { constrainAcceleration, constrainSteeringVelocity } from './constraints.js';
import { GRAVITY, KINEMATIC_SWITCH_SPEED } from './model-constants.js';
import { ISLIP, ISTEER, IV, IYAW, IYAW_RATE, packState, STATE_SIZE, type StateVector } from './state-vector.js';
import type { VehicleParams, VehicleState } from './types.js';

export { constrainAcceleration, constrainSteeringVelocity } from './constraints.js';
// Apart from the model, so the scenario checks that name them load without it.
export { GRAVITY, KINEMATIC_SWITCH_SPEED } from './model-constants.js';

/** Time derivative of each VehicleState field. */
export interface VehicleStateDerivative {
  x: number;
  y: number;
  steer: number;
  v: number;
  yaw: number;
  yawRate: number;
  slip: number;
}

/**
 * The vector field of f1tenth_gym's vehicle_dynamics_st, written into `out` (length 7, packed
 * [x, y, steer, v, yaw, yawRate, slip]). Inputs are the raw (unconstrained) acceleration and
 * steering velocity; the constraints are applied here against the state being evaluated, so each
 * RK4 stage sees its own limits, as in the gym. Allocates nothing.
 */
export function singleTrackDerivativesInto(
  out: StateVector,
  x: ArrayLike<number>,
  accelRaw: number,
  steerVelRaw: number,
  p: VehicleParams,
): StateVector {
  const steer = x[ISTEER];
  const v = x[IV];
  const yaw = x[IYAW];
  const yawRate = x[IYAW_RATE];
  const slip = x[ISLIP];
  const sv = constrainSteeringVelocity(steer, steerVelRaw, p);
  const a = constrainAcceleration(v, accelRaw, p);

  if (Math.abs(v) < KINEMATIC_SWITCH_SPEED) {
    // Kinematic single-track model; the yaw-rate row is the derivative of v/lwb*tan(steer) so the
    // dynamic model takes over with a consistent yaw rate, and the slip angle is frozen.
    const lwb = p.lf + p.lr;
    out[0] = v * Math.cos(yaw);
    out[1] = v * Math.sin(yaw);
    out[2] = sv;
    out[3] = a;
    out[4] = (v / lwb) * Math.tan(steer);
    const cosSteer = Math.cos(steer);
    out[5] = (a / lwb) * Math.tan(steer) + (v / (lwb * (cosSteer * cosSteer))) * sv;
    out[6] = 0;
    return out;
  }

  const { mu, m, I, lf, lr, h, C_Sf, C_Sr } = p;
  const g = GRAVITY;
  // Normal-load terms with longitudinal load transfer.
  const frontLoad = g * lr - a * h;
  const rearLoad = g * lf + a * h;
  const wheelbase = lr + lf;
  out[0] = v * Math.cos(slip + yaw);
  out[1] = v * Math.sin(slip + yaw);
  out[2] = sv;
  out[3] = a;
  out[4] = yawRate;
  out[5] =
    ((-mu * m) / (v * I * wheelbase)) * (lf ** 2 * C_Sf * frontLoad + lr ** 2 * C_Sr * rearLoad) * yawRate +
    ((mu * m) / (I * wheelbase)) * (lr * C_Sr * rearLoad - lf * C_Sf * frontLoad) * slip +
    ((mu * m) / (I * wheelbase)) * lf * C_Sf * frontLoad * steer;
  out[6] =
    ((mu / (v ** 2 * wheelbase)) * (C_Sr * rearLoad * lr - C_Sf * frontLoad * lf) - 1) * yawRate -
    (mu / (v * wheelbase)) * (C_Sr * rearLoad + C_Sf * frontLoad) * slip +
    (mu / (v * wheelbase)) * (C_Sf * frontLoad) * steer;
  return out;
}

/** Convenience form of singleTrackDerivativesInto on a named state (allocates; not for hot loops). */
export function singleTrackDerivatives(
  state: VehicleState,
  accel: number,
  steerVel: number,
  params: VehicleParams,
): VehicleStateDerivative {
  const d = singleTrackDerivativesInto(new Float64Array(STATE_SIZE), packState(state), accel, steerVel, params);
  return { x: d[0], y: d[1], steer: d[2], v: d[3], yaw: d[4], yawRate: d[5], slip: d[6] };
}
