import type { Odometry, V2VMessage, VehicleApp, VehicleContext } from '../../control/vehicle-context.js';
import { type BodySize, type TtcMethod, ttcBy } from '../../physics/ttc.js';
import { DenOriginator } from '../facilities/den-service.js';
import { type DenmDisseminationOptions, denParamsOf } from '../facilities/denm-dissemination.js';
import { PerceivedObjectTable, perceivedObstacles } from '../facilities/perceived-objects.js';
import { projectedState } from '../facilities/projected-state.js';
import type { StationFacts } from '../facilities/vehicle-state.js';
import type { GeoReference } from '../networking/geo-reference.js';
import type { TtcBodies } from './emergency-brake.js';

export interface DenmOptions extends DenmDisseminationOptions {
  /** hard-braking: the deceleration above which the car brakes hard [m/s^2]. */
  deceleration: number;
  /** collision-risk: the TTC below which there is a risk [s], to the cars seen by `source`. */
  ttc: number;
  source: 'infrastructure' | 'neighbours';
  maxAge: number;
  ttcMethod: TtcMethod;
  /** collision-risk: also the objects other cars' CPMs report, measured at most `perceivedMaxAge` ago [s]. */
  perceived?: boolean;
  perceivedMaxAge?: number;
  /** stationary: slower than `stoppedSpeed` for this long [s]. */
  stationaryAfter: number;
  /** While the event lasts, an update this often [s] (default: none). */
  updateInterval?: number;
  /** Send a cancellation when the event ends (else it runs out at its validity). */
  cancel: boolean;
}

/** Below this speed a car is stopped [m/s]. */
const STOPPED_SPEED = 0.05;
/** An event whose condition has been false this long is over [s]: one noisy tick ends nothing. */
const END_HOLD = 0.3;
const EPS = 1e-9;

/** Whether the event's condition holds now, given the car's state and its deceleration since the last tick. */
function conditionOf(
  opts: DenmOptions,
  ctx: VehicleContext,
  own: Odometry,
  deceleration: number,
  bodies: TtcBodies,
  stoppedSince: number | undefined,
  perceived?: PerceivedObjectTable,
): boolean {
  const now = ctx.now();
  switch (opts.on) {
    case 'hard-braking':
      return deceleration > opts.deceleration && Math.abs(own.v) >= STOPPED_SPEED;
    case 'emergency-brake':
      return ctx.isBraking() && Math.abs(own.v) >= STOPPED_SPEED;
    case 'stationary':
      return stoppedSince !== undefined && now - stoppedSince + EPS >= opts.stationaryAfter;
    case 'collision-risk': {
      const others: Iterable<[string, Odometry]> =
        opts.source === 'infrastructure'
          ? ctx.others()
          : [...ctx.neighbours()]
              .filter(([, n]) => now - n.state.t <= opts.maxAge)
              .map(([name, n]) => [name, projectedState(n, now)] as [string, Odometry]);
      const seen: [string, Odometry, BodySize][] = [...others].map(([name, other]) => [
        name,
        other,
        bodies.others?.get(name) ?? bodies.own,
      ]);
      if (perceived) seen.push(...perceivedObstacles(perceived, own, bodies.own, now, opts.perceivedMaxAge ?? 1.1));
      for (const [, other, size] of seen) {
        const ttc = ttcBy(opts.ttcMethod, own, bodies.own, other, size);
        if (ttc !== undefined && ttc < opts.ttc) return true;
      }
      return false;
    }
  }
}

/**
 * A car's DENM use case: when its event starts (hard braking, its emergency brake latching, a TTC
 * below the threshold, or standing still), the DEN basic service sends a new DENM; while the
 * event lasts, an update every `updateInterval` if set; when it ends (the condition false for
 * 0.3 s, or the car stopped for the braking events), a cancellation if `cancel`. Detection uses the
 * car's own odometry at its control ticks, so a scripted brake counts as any other.
 */
export function createDenm(opts: DenmOptions, station: StationFacts, ref: GeoReference, bodies: TtcBodies): VehicleApp {
  const service = new DenOriginator(station, ref, denParamsOf(opts));
  let previous: { t: number; v: number } | undefined;
  let stoppedSince: number | undefined;
  let falseSince: number | undefined;
  let lastDetection = 0;
  const perceived = opts.on === 'collision-risk' && opts.perceived ? new PerceivedObjectTable(ref) : undefined;
  return {
    ...(perceived ? { onMessage: (ctx: VehicleContext, msg: V2VMessage) => void perceived.update(msg, ctx.now()) } : {}),
    onTick(ctx) {
      const own = ctx.own();
      const now = ctx.now();
      if (!own) return;
      const deceleration = previous && own.t > previous.t ? (previous.v - own.v) / (own.t - previous.t) : 0;
      if (!previous || own.t > previous.t) previous = { t: own.t, v: own.v };
      if (Math.abs(own.v) >= STOPPED_SPEED) stoppedSince = undefined;
      else stoppedSince ??= now;
      const holds = conditionOf(opts, ctx, own, deceleration, bodies, stoppedSince, perceived);
      if (!service.eventOn && holds) {
        const denm = service.trigger(now, own);
        lastDetection = now;
        falseSince = undefined;
        ctx.log('denm-triggered', {
          event: opts.on,
          cause: denm.situation!.eventType.causeCode,
          sub_cause: denm.situation!.eventType.subCauseCode,
          sequence: denm.management.actionId.sequenceNumber,
        });
      } else if (service.eventOn) {
        falseSince = holds ? undefined : (falseSince ?? now);
        const stopped = (opts.on === 'hard-braking' || opts.on === 'emergency-brake') && Math.abs(own.v) < STOPPED_SPEED;
        if (stopped || (falseSince !== undefined && now - falseSince + EPS >= END_HOLD)) {
          if (opts.cancel) {
            service.terminate(now, own);
            ctx.log('denm-cancelled', { event: opts.on });
          } else service.forget();
        } else if (opts.updateInterval !== undefined && now - lastDetection + EPS >= opts.updateInterval) {
          service.update(now, own);
          lastDetection = now;
        }
      }
      service.tick(ctx, now);
    },
  };
}
