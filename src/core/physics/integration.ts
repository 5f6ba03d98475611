import { singleTrackDerivativesInto } from './dynamics.js';
import { IYAW, STATE_SIZE, type StateVector } from './state-vector.js';
import type { VehicleParams } from './types.js';

export type IntegratorKind = 'rk4' | 'euler';

/** Work arrays for one vehicle's integration, allocated once. */
export class IntegrationScratch {
  readonly k1 = new Float64Array(STATE_SIZE);
  readonly k2 = new Float64Array(STATE_SIZE);
  readonly k3 = new Float64Array(STATE_SIZE);
  readonly k4 = new Float64Array(STATE_SIZE);
  readonly stage = new Float64Array(STATE_SIZE);
}

const TWO_PI = 2 * Math.PI;

/**
 * One step of RaceCar.update_pose's integration with inputs held constant over the step, then
 * its single-shot yaw wrap into [0, 2*pi] (a yaw off by more than 2*pi is not fully wrapped,
 * as in the gym). Arithmetic is ordered as the gym's numpy expressions so results agree to
 * rounding of the trigonometric functions.
 */
export function integrateStepInPlace(
  kind: IntegratorKind,
  x: StateVector,
  accel: number,
  steerVel: number,
  params: VehicleParams,
  dt: number,
  s: IntegrationScratch,
): void {
  if (kind === 'rk4') {
    const { k1, k2, k3, k4, stage } = s;
    singleTrackDerivativesInto(k1, x, accel, steerVel, params);
    for (let i = 0; i < STATE_SIZE; i++) stage[i] = x[i] + dt * (k1[i] / 2);
    singleTrackDerivativesInto(k2, stage, accel, steerVel, params);
    for (let i = 0; i < STATE_SIZE; i++) stage[i] = x[i] + dt * (k2[i] / 2);
    singleTrackDerivativesInto(k3, stage, accel, steerVel, params);
    for (let i = 0; i < STATE_SIZE; i++) stage[i] = x[i] + dt * k3[i];
    singleTrackDerivativesInto(k4, stage, accel, steerVel, params);
    const weight = dt * (1 / 6);
    for (let i = 0; i < STATE_SIZE; i++) x[i] = x[i] + weight * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  } else {
    const f = singleTrackDerivativesInto(s.k1, x, accel, steerVel, params);
    for (let i = 0; i < STATE_SIZE; i++) x[i] = x[i] + dt * f[i];
  }

  if (x[IYAW] > TWO_PI) x[IYAW] = x[IYAW] - TWO_PI;
  else if (x[IYAW] < 0) x[IYAW] = x[IYAW] + TWO_PI;
}
