import type { PropagationModel } from '../../../scenario/resolved.js';
import { SPEED_OF_LIGHT } from './ofdm-timing.js';

/**
 * Path loss [dB] of each propagation model at a horizontal distance, with the formulas and default
 * attributes of the ns-3 models the ns-3 engine uses (ns-3 3.37), so both engines start from the same
 * power. `lineOfSight` matters only to the 3GPP models (the map's walls decide it).
 */
export interface PathLossContext {
  frequencyHz: number;
  /** Both antennas' height above the ground [m]. */
  antennaHeight: number;
}

export type PathLoss = (distance: number, lineOfSight: boolean) => number;

/** LogDistancePropagationLossModel's defaults: exponent 3 from 46.6777 dB at 1 m. */
const LOG_DISTANCE = { exponent: 3, referenceDistance: 1, referenceLoss: 46.6777 };
/** TwoRayGroundPropagationLossModel: below this distance it returns its minimum loss (0 dB). */
const TWO_RAY_MIN_DISTANCE = 0.5;
/** WINNER+ B1: antenna heights above the effective environment height (0.5 m). */
const WINNER_ENVIRONMENT_HEIGHT = 0.5;

const friisLoss = (distance: number, lambda: number) =>
  distance <= 0 ? 0 : Math.max(-10 * Math.log10((lambda * lambda) / (16 * Math.PI * Math.PI * distance * distance)), 0);

export function pathLossModel(model: PropagationModel, ctx: PathLossContext): PathLoss {
  const lambda = SPEED_OF_LIGHT / ctx.frequencyHz;
  const fGHz = ctx.frequencyHz / 1e9;
  const h = ctx.antennaHeight;
  switch (model) {
    case 'log-distance':
      return (d) =>
        d <= LOG_DISTANCE.referenceDistance
          ? LOG_DISTANCE.referenceLoss
          : LOG_DISTANCE.referenceLoss + 10 * LOG_DISTANCE.exponent * Math.log10(d / LOG_DISTANCE.referenceDistance);
    case 'friis':
      return (d) => friisLoss(d, lambda);
    case 'two-ray': {
      const crossover = (4 * Math.PI * h * h) / lambda;
      return (d) => {
        if (d <= TWO_RAY_MIN_DISTANCE) return 0;
        if (d <= crossover) return -10 * Math.log10((lambda * lambda) / (16 * Math.PI * Math.PI * d * d));
        return -10 * Math.log10((h * h * h * h) / (d * d * d * d));
      };
    }
    case '3gpp-v2v-highway':
    case '3gpp-v2v-urban': {
      // 3GPP TR 37.885 Table 6.2.1-1; both models take the urban NLOS formula when walls block the path.
      // The frequency terms are hoisted out of the per-call path; each sum keeps its order, so the value is the same to the bit.
      const highway = model === '3gpp-v2v-highway';
      const losSlope = highway ? 20 : 16.7;
      const losIntercept = highway ? 32.4 : 38.77;
      const losFrequency = highway ? 20 * Math.log10(fGHz) : 18.2 * Math.log10(fGHz);
      const nlosFrequency = 18.9 * Math.log10(fGHz);
      return (d, lineOfSight) => {
        const logR = Math.log10(Math.max(d, 1));
        return lineOfSight ? losIntercept + losSlope * logR + losFrequency : 36.85 + 30 * logR + nlosFrequency;
      };
    }
    case 'winner-b1': {
      const he = h - WINNER_ENVIRONMENT_HEIGHT;
      const breakpoint = (4 * he * he * ctx.frequencyHz) / SPEED_OF_LIGHT;
      const nearFrequency = 20 * Math.log10(fGHz);
      const farHeight = 17.3 * Math.log10(he);
      const farFrequency = 2.7 * Math.log10(fGHz);
      const freeFrequency = 20 * Math.log10(fGHz / 5);
      return (d) => {
        const r = Math.max(d, 1);
        const logR = Math.log10(r);
        const winner = r < breakpoint ? 22.7 * logR + 27 + nearFrequency : 40 * logR + 7.56 - farHeight - farHeight + farFrequency;
        const free = 20 * logR + 46.4 + freeFrequency;
        return free > winner ? free : winner;
      };
    }
  }
}

/** The 3GPP models' own log-normal shadowing (TR 37.885 Table 6.2.1-1, as ns-3 applies it): sigma and decorrelation distance. */
export function modelShadowing(model: PropagationModel, lineOfSight: boolean): { sigmaDb: number; decorrelationM: number } | undefined {
  if (model !== '3gpp-v2v-highway' && model !== '3gpp-v2v-urban') return undefined;
  return lineOfSight ? { sigmaDb: 3, decorrelationM: 10 } : { sigmaDb: 4, decorrelationM: 13 };
}

/** The first distance from which the loss stays at least `lossDb` (searched outwards in 1 m steps, then refined). */
export function distanceForLoss(loss: PathLoss, lossDb: number, maxDistance = 100_000): number {
  let d = 1;
  while (d < maxDistance && loss(d, true) < lossDb) d *= 1.25;
  if (d >= maxDistance) return maxDistance;
  let lo = d / 1.25;
  let hi = d;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (loss(mid, true) < lossDb) lo = mid;
    else hi = mid;
  }
  return hi;
}
