import type { VehicleApp } from '../../control/vehicle-context.js';
import { encodeCam } from '../codec/cam-pdu.js';
import type { GeoReference } from '../networking/geo-reference.js';
import { headingDegrees } from '../networking/geo-reference.js';
import { BTP_PORT_CAM, encodeShb } from '../networking/geonetworking.js';
import { CAM_GENERATION_DEFAULTS, type CamGenerationParams, CamGenerationRules } from './cam-generation.js';
import { accelerationTracker, periodicChecks } from './sending-schedule.js';
import { camOf, positionVectorOf, type StationFacts } from './vehicle-state.js';

export const CAM_MESSAGE = 'cam';
/** GN traffic class of CAMs: no store-carry-forward, no channel offload, DP2 (as Vanetza's CA service). */
const CAM_TRAFFIC_CLASS = 2;

export interface CamOptions {
  /** Fixed CAM rate [Hz], instead of the generation rules. */
  rate?: number;
  minInterval: number;
  maxInterval: number;
  /** T_CheckCamGen [s]; default T_GenCamMin. */
  checkInterval?: number;
  nGenCam: number;
  lowFrequencyInterval: number;
  /** reactive: T_GenCam_Dcc follows the car's congestion control. */
  dcc?: 'off' | 'reactive';
}

/**
 * The CA basic service on a car: at every T_CheckCamGen (the first control tick at or after it;
 * each car's checks start at their own offset, fixed by its name) it applies the generation rules
 * and broadcasts a CAM in GeoNetworking single-hop broadcast over BTP-B port 2001. The message's
 * `packet` is the GN packet as sent; its body is the CAM's fields, for whoever reads JSON.
 */
export function createCam(name: string, opts: CamOptions, station: StationFacts, ref: GeoReference): VehicleApp {
  const params: CamGenerationParams = {
    ...CAM_GENERATION_DEFAULTS,
    minInterval: opts.minInterval,
    maxInterval: opts.maxInterval,
    nGenCam: opts.nGenCam,
    lowFrequencyInterval: opts.lowFrequencyInterval,
  };
  if (opts.rate !== undefined) params.fixedInterval = 1 / opts.rate;
  const rules = new CamGenerationRules(params);
  const checkEvery = opts.rate !== undefined ? 1 / opts.rate : (opts.checkInterval ?? opts.minInterval);
  const checkDue = periodicChecks(`cam-${name}`, checkEvery);
  const accelerationOf = accelerationTracker();
  return {
    onTick(ctx) {
      const own = ctx.own();
      if (!own) return;
      const acceleration = accelerationOf(own);
      const now = ctx.now();
      if (!checkDue(now)) return;
      const dccInterval = opts.dcc === 'reactive' ? (ctx.dccInterval?.() ?? 0) : 0;
      const decision = rules.check(now, { x: own.x, y: own.y, headingDeg: headingDegrees(own.yaw), speed: Math.abs(own.v) }, dccInterval);
      if (!decision) return;
      const state = { t: now, x: own.x, y: own.y, yaw: own.yaw, v: own.v, yawRate: own.yawRate, acceleration };
      const cam = camOf(state, station, ref, decision.lowFrequency);
      const packet = encodeShb({
        source: positionVectorOf(state, station, ref),
        btpPort: BTP_PORT_CAM,
        trafficClass: CAM_TRAFFIC_CLASS,
        payload: encodeCam(cam),
      });
      ctx.send('*', CAM_MESSAGE, { ...cam, trigger: decision.trigger }, { packet });
    },
  };
}
