import type { VehicleParams } from './types.js';

/** Raw inputs to the vehicle dynamics, before the constraint functions. */
export interface DynamicsInputs {
  accel: number; // [m/s^2]
  steerVel: number; // [rad/s]
}

/** Steering errors at or below this are treated as reached (f1tenth_gym's pid). */
export const STEER_DEADBAND = 1e-4;

/**
 * Bang-bang steering of f1tenth_gym's pid(): full sv_max towards the commanded angle. sv_max is
 * used for both directions, as in the gym (sv_min only enters through the constraint function).
 */
export function steeringVelocityForCommand(steerCmd: number, steer: number, params: Pick<VehicleParams, 'sv_max'>): number {
  const steerDiff = steerCmd - steer;
  if (Math.abs(steerDiff) > STEER_DEADBAND) return (steerDiff / Math.abs(steerDiff)) * params.sv_max;
  return 0;
}

/**
 * Proportional speed controller of f1tenth_gym's pid(). Gains, moving forward (v > 0):
 * 10*a_max/v_max when speeding up, 10*a_max/(-v_min) when braking; moving backward (v <= 0):
 * 2*a_max/v_max when braking, 2*a_max/(-v_min) when speeding up in reverse. The result is
 * usually far beyond a_max and is cut down by constrainAcceleration.
 */
export function accelerationForCommand(speedCmd: number, v: number, params: Pick<VehicleParams, 'a_max' | 'v_max' | 'v_min'>): number {
  const velDiff = speedCmd - v;
  const { a_max, v_max, v_min } = params;
  if (v > 0) {
    const kp = velDiff > 0 ? (10.0 * a_max) / v_max : (10.0 * a_max) / -v_min;
    return kp * velDiff;
  }
  const kp = velDiff > 0 ? (2.0 * a_max) / v_max : (2.0 * a_max) / -v_min;
  return kp * velDiff;
}

/** (speed, steering angle) command -> (acceleration, steering velocity), as f1tenth_gym's pid(). */
export function commandToDynamicsInputs(
  speedCmd: number,
  steerCmd: number,
  state: { v: number; steer: number },
  params: VehicleParams,
): DynamicsInputs {
  return {
    accel: accelerationForCommand(speedCmd, state.v, params),
    steerVel: steeringVelocityForCommand(steerCmd, state.steer, params),
  };
}
