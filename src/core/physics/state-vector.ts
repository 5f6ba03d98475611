import type { VehicleState } from './types.js';

/**
 * f1tenth_gym's state vector layout [x, y, steer, v, yaw, yawRate, slip]. The integrators work on
 * this packed form so that a step allocates nothing.
 */
export const STATE_SIZE = 7;
export const IX = 0;
export const IY = 1;
export const ISTEER = 2;
export const IV = 3;
export const IYAW = 4;
export const IYAW_RATE = 5;
export const ISLIP = 6;

export type StateVector = Float64Array;

export function packState(state: VehicleState, out: StateVector = new Float64Array(STATE_SIZE)): StateVector {
  out[IX] = state.x;
  out[IY] = state.y;
  out[ISTEER] = state.steer;
  out[IV] = state.v;
  out[IYAW] = state.yaw;
  out[IYAW_RATE] = state.yawRate;
  out[ISLIP] = state.slip;
  return out;
}

/** unpackState into an existing state (no object per step). */
export function unpackStateInto(vector: ArrayLike<number>, out: VehicleState): VehicleState {
  out.x = vector[IX];
  out.y = vector[IY];
  out.steer = vector[ISTEER];
  out.v = vector[IV];
  out.yaw = vector[IYAW];
  out.yawRate = vector[IYAW_RATE];
  out.slip = vector[ISLIP];
  return out;
}

export function unpackState(vector: ArrayLike<number>): VehicleState {
  return {
    x: vector[IX],
    y: vector[IY],
    steer: vector[ISTEER],
    v: vector[IV],
    yaw: vector[IYAW],
    yawRate: vector[IYAW_RATE],
    slip: vector[ISLIP],
  };
}
