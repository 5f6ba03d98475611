import { createRandom, deriveSeed } from '../../util/random.js';
import { encodeCam } from '../its/cam.js';
import { BTP_PORT_CAM, encodeShb } from '../its/geonetworking.js';
import type { GeoReference } from '../its/geo-reference.js';
import { headingDegrees } from '../its/geo-reference.js';
import { camOf, positionVectorOf, type StationFacts } from '../its/vehicle-state.js';
import { CAM_GENERATION_DEFAULTS, CamGenerationRules, type CamGenerationParams } from './cam-generation.js';
import type { VehicleApp } from './vehicle-context.js';

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
}

/**
 * The CA basic service on a car: at every T_CheckCamGen (the first control tick at or after it;
 * each car's checks start at their own offset, fixed by its name) it applies the generation rules
 * and broadcasts a CAM in GeoNetworking single-hop broadcast over BTP-B port 2001. The message's
 * `packet` is the GN packet as sent; its body is the CAM's fields, for whoever reads JSON.
 */
export function createCam(name: string, opts: CamOptions, station: StationFacts, ref: GeoReference): VehicleApp {
  const params: CamGenerationParams = { ...CAM_GENERATION_DEFAULTS, minInterval: opts.minInterval, maxInterval: opts.maxInterval, nGenCam: opts.nGenCam, lowFrequencyInterval: opts.lowFrequencyInterval };
  if (opts.rate !== undefined) params.fixedInterval = 1 / opts.rate;
  const rules = new CamGenerationRules(params);
  const checkEvery = opts.rate !== undefined ? 1 / opts.rate : (opts.checkInterval ?? opts.minInterval);
  let nextCheck: number | undefined;
  let previous: { t: number; v: number } | undefined;
  let acceleration = 0;
  return {
    onTick(ctx) {
      const own = ctx.own();
      if (!own) return;
      if (previous && own.t > previous.t) acceleration = (own.v - previous.v) / (own.t - previous.t);
      previous = { t: own.t, v: own.v };
      const now = ctx.now();
      nextCheck ??= now + createRandom(deriveSeed(0, `cam-${name}`))() * checkEvery;
      if (now + 1e-9 < nextCheck) return;
      nextCheck += checkEvery * Math.max(1, Math.floor((now - nextCheck) / checkEvery + 1e-9) + 1);
      const decision = rules.check(now, { x: own.x, y: own.y, headingDeg: headingDegrees(own.yaw), speed: Math.abs(own.v) });
      if (!decision) return;
      const state = { t: now, x: own.x, y: own.y, yaw: own.yaw, v: own.v, yawRate: own.yawRate, acceleration };
      const cam = camOf(state, station, ref, decision.lowFrequency);
      const packet = encodeShb({ source: positionVectorOf(state, station, ref), btpPort: BTP_PORT_CAM, trafficClass: CAM_TRAFFIC_CLASS, payload: encodeCam(cam) });
      ctx.send('*', CAM_MESSAGE, { ...cam, trigger: decision.trigger }, { packet });
    },
  };
}
