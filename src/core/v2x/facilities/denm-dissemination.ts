import { CAUSE, type CauseCode, SUB_CAUSE } from '../codec/denm-pdu.js';
import type { DenParams } from './den-service.js';
import { DENM_EVENTS, type DenmEvent, TRAFFIC_DIRECTIONS } from './denm-events.js';

/**
 * Each event's cause and sub-cause (TS 102 894-2 V1.3.1, CauseCodeType and its sub-cause types):
 * hard braking is dangerousSituation / emergencyElectronicBrakeEngaged (the emergency electronic
 * brake light), an emergency brake dangerousSituation / aebEngaged, a collision risk
 * collisionRisk / longitudinalCollisionRisk (the car ahead), a stopped car stationaryVehicle /
 * unavailable (no cause known).
 */
export const DENM_EVENT_CAUSE: Record<DenmEvent, CauseCode> = {
  'hard-braking': { causeCode: CAUSE.dangerousSituation, subCauseCode: SUB_CAUSE.emergencyElectronicBrakeEngaged },
  'emergency-brake': { causeCode: CAUSE.dangerousSituation, subCauseCode: SUB_CAUSE.aebEngaged },
  'collision-risk': { causeCode: CAUSE.collisionRisk, subCauseCode: SUB_CAUSE.longitudinalCollisionRisk },
  stationary: { causeCode: CAUSE.stationaryVehicle, subCauseCode: SUB_CAUSE.unavailable },
};

/** The event a cause code stands for here, if any. */
export const denmEventOf = (c: CauseCode): DenmEvent | undefined =>
  DENM_EVENTS.find((e) => DENM_EVENT_CAUSE[e].causeCode === c.causeCode && DENM_EVENT_CAUSE[e].subCauseCode === c.subCauseCode);

type Dissemination = Pick<DenParams, 'validity' | 'repetitionInterval' | 'relevanceDistance' | 'trafficDirection'>;

/**
 * cavsim's defaults for each event; EN 302 637-3 leaves validity, repetition and relevance to the
 * application (only validityDuration's ASN.1 default, 600 s, is the standard's). A braking car's
 * warning concerns the traffic behind it, for a few seconds; a stopped car stays a hazard.
 */
export const DENM_EVENT_DEFAULTS: Record<DenmEvent, Dissemination> = {
  'hard-braking': { validity: 2, repetitionInterval: 0.1, relevanceDistance: 200, trafficDirection: 'upstreamTraffic' },
  'emergency-brake': { validity: 2, repetitionInterval: 0.1, relevanceDistance: 200, trafficDirection: 'upstreamTraffic' },
  'collision-risk': { validity: 2, repetitionInterval: 0.1, relevanceDistance: 200, trafficDirection: 'allTrafficDirections' },
  stationary: { validity: 60, repetitionInterval: 1, relevanceDistance: 500, trafficDirection: 'allTrafficDirections' },
};

/** What a DENM use case says about how its event is disseminated; the rest comes from the event's defaults. */
export interface DenmDisseminationOptions {
  on: DenmEvent;
  validity?: number;
  repetitionInterval?: number;
  /** Default: the validity. */
  repetitionDuration?: number;
  relevanceDistance?: number;
  trafficDirection?: keyof typeof TRAFFIC_DIRECTIONS;
  scope: 'geo-broadcast' | 'topological';
  hops: number;
}

/** informationQuality: the simulator knows its own events exactly (highest, 7). */
const INFORMATION_QUALITY = 7;

/** The DEN basic service's parameters for these options. */
export function denParamsOf(opts: DenmDisseminationOptions): DenParams {
  const d = DENM_EVENT_DEFAULTS[opts.on];
  const validity = opts.validity ?? d.validity;
  return {
    cause: DENM_EVENT_CAUSE[opts.on],
    validity,
    repetitionInterval: opts.repetitionInterval ?? d.repetitionInterval,
    repetitionDuration: opts.repetitionDuration ?? validity,
    relevanceDistance: opts.relevanceDistance ?? d.relevanceDistance,
    trafficDirection: opts.trafficDirection ? TRAFFIC_DIRECTIONS[opts.trafficDirection] : d.trafficDirection,
    scope: opts.scope,
    hops: opts.hops,
    informationQuality: INFORMATION_QUALITY,
  };
}
