import type { VehicleParams } from './types.js';

type AccelLimits = Pick<VehicleParams, 'v_switch' | 'a_max' | 'v_min' | 'v_max'>;
type SteerLimits = Pick<VehicleParams, 's_min' | 's_max' | 'sv_min' | 'sv_max'>;

/**
 * f1tenth_gym's accl_constraints: above v_switch the positive limit falls as a_max*v_switch/v
 * (constant power, no wheel spin); at the velocity bounds acceleration pushing further out is
 * dropped to zero; braking is limited to -a_max.
 */
export function constrainAcceleration(v: number, accel: number, limits: AccelLimits): number {
  const positiveLimit = v > limits.v_switch ? (limits.a_max * limits.v_switch) / v : limits.a_max;
  if ((v <= limits.v_min && accel <= 0) || (v >= limits.v_max && accel >= 0)) return 0;
  if (accel <= -limits.a_max) return -limits.a_max;
  if (accel >= positiveLimit) return positiveLimit;
  return accel;
}

/**
 * f1tenth_gym's steering_constraint: the steering rate is clipped to [sv_min, sv_max] and set to
 * zero when the angle is at (or past) a bound and the rate would push it further. The angle itself
 * is never clipped, so an integration step may overshoot s_max slightly, exactly as in the gym.
 */
export function constrainSteeringVelocity(steer: number, steerVel: number, limits: SteerLimits): number {
  if ((steer <= limits.s_min && steerVel <= 0) || (steer >= limits.s_max && steerVel >= 0)) return 0;
  if (steerVel <= limits.sv_min) return limits.sv_min;
  if (steerVel >= limits.sv_max) return limits.sv_max;
  return steerVel;
}
