import type { VehicleParams } from './types.js';

/**
 * f1tenth_gym's default vehicle (F110Env, commit 4fdb9c7e6fb7c701290f4dc18377d07c1681724f):
 * a 1/10-scale car with the CommonRoad single-track parameters scaled down.
 */
export const F1TENTH_DEFAULT_PARAMS: Readonly<VehicleParams> = Object.freeze({
  mu: 1.0489,
  C_Sf: 4.718,
  C_Sr: 5.4562,
  lf: 0.15875,
  lr: 0.17145,
  h: 0.074,
  m: 3.74,
  I: 0.04712,
  s_min: -0.4189,
  s_max: 0.4189,
  sv_min: -3.2,
  sv_max: 3.2,
  v_switch: 7.319,
  a_max: 9.51,
  v_min: -5.0,
  v_max: 20.0,
  width: 0.31,
  length: 0.58,
});

/** Physics step of F110Env [s]. */
export const F1TENTH_TIMESTEP = 0.01;

/** F110Env's default integrator (RaceCar alone would default to Euler, but the env passes RK4). */
export const F1TENTH_DEFAULT_INTEGRATOR = 'rk4' as const;

/** RaceCar.steer_buffer_size: the steering command takes effect this many steps late. */
export const F1TENTH_STEER_DELAY_STEPS = 2;
