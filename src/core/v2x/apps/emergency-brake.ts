import type { Odometry, V2VMessage, VehicleApp, VehicleContext } from '../../control/vehicle-context.js';
import { type BodySize, type TtcMethod, ttcBy } from '../../physics/ttc.js';
import { concerns, DENM_MESSAGE, DenReceiver } from '../facilities/den-service.js';
import { denmEventOf } from '../facilities/denm-dissemination.js';
import { PerceivedObjectTable, perceivedObstacles } from '../facilities/perceived-objects.js';
import { projectedState } from '../facilities/projected-state.js';
import type { GeoReference } from '../networking/geo-reference.js';

export const BRAKE_MESSAGE = 'emergency-brake';

export interface TtcBrakeSenderOptions {
  threshold: number;
  to: string;
  brakeSelf: boolean;
  /** `infrastructure`: the observed cars' true state; `neighbours`: what their beacons said, carried forward to now. */
  source: 'infrastructure' | 'neighbours';
  /** `neighbours`: a car whose last beacon is older than this is not considered [s]. */
  maxAge: number;
  /** `geometric`: time to footprint overlap; `centre-distance`: the thesis's Eq. 3.7. */
  ttc: TtcMethod;
  /** Also the objects other cars' CPMs report, heard of at most `perceivedMaxAge` ago [s]. */
  perceived?: boolean;
  perceivedMaxAge?: number;
}

/** Sizes the geometric TTC uses: this car's own, and each other car's by name (own size when unknown). */
export interface TtcBodies {
  own: BodySize;
  others?: ReadonlyMap<string, BodySize>;
}

/** The other cars as this app sees them. */
function othersSeen(ctx: VehicleContext, opts: TtcBrakeSenderOptions): Iterable<[string, Odometry]> {
  if (opts.source === 'infrastructure') return ctx.others();
  const now = ctx.now();
  return [...ctx.neighbours()]
    .filter(([, n]) => now - n.state.t <= opts.maxAge)
    .map(([name, n]) => [name, projectedState(n, now)] as [string, Odometry]);
}

/**
 * The thesis's car0 module: watches the TTC (by `opts.ttc`: footprint overlap, or Eq. 3.7) to every
 * other car it knows of and, the first time it falls below the threshold, sends one brake message
 * and (optionally) brakes itself.
 */
export function createTtcBrakeSender(opts: TtcBrakeSenderOptions, bodies: TtcBodies, geoReference?: GeoReference): VehicleApp {
  let sent = false;
  const perceived = opts.perceived && geoReference ? new PerceivedObjectTable(geoReference) : undefined;
  return {
    ...(perceived ? { onMessage: (ctx: VehicleContext, msg: V2VMessage) => void perceived.update(msg, ctx.now()) } : {}),
    onTick(ctx) {
      if (sent) return;
      const own = ctx.own();
      if (!own) return;
      const seen: [string, Odometry, BodySize][] = [...othersSeen(ctx, opts)].map(([name, other]) => [
        name,
        other,
        bodies.others?.get(name) ?? bodies.own,
      ]);
      if (perceived) seen.push(...perceivedObstacles(perceived, own, bodies.own, ctx.now(), opts.perceivedMaxAge ?? 1.1));
      for (const [name, other, size] of seen) {
        const ttc = ttcBy(opts.ttc, own, bodies.own, other, size);
        if (ttc === undefined || ttc >= opts.threshold) continue;
        sent = true;
        ctx.send(opts.to, BRAKE_MESSAGE, { ttc_s: ttc, about: name });
        ctx.log('brake-sent', { ttc_s: ttc, about: name, to: opts.to });
        if (opts.brakeSelf) ctx.emergencyBrake(`TTC ${ttc.toFixed(3)} s to ${name}`);
        return;
      }
    },
  };
}

/**
 * The thesis's car1 module: brakes as soon as a brake message arrives, or (with a geo reference to
 * place DENMs) a DENM of a new emergency brake or collision risk that concerns this car: the
 * standard message a `denm` app sends for the same situation.
 */
export function createBrakeReceiver(geoReference?: GeoReference): VehicleApp {
  const dens = geoReference ? new DenReceiver(geoReference) : undefined;
  return {
    onMessage(ctx, msg) {
      if (msg.type === DENM_MESSAGE && dens && geoReference) {
        const got = dens.receive(msg, ctx.now(), ctx.own());
        const cause = got?.denm.situation?.eventType;
        const event = cause && denmEventOf(cause);
        const own = ctx.own();
        if (
          !got ||
          (got.kind !== 'new' && got.kind !== 'update') ||
          (event !== 'emergency-brake' && event !== 'collision-risk') ||
          (own && !concerns(got.denm, geoReference, own)) ||
          ctx.isBraking()
        )
          return;
        ctx.log('brake-received', {
          from: msg.from,
          id: msg.id,
          format: 'denm',
          cause: cause!.causeCode,
          sub_cause: cause!.subCauseCode,
          detected_s: got.denm.management.detectionTime / 1000,
        });
        return ctx.emergencyBrake(`DENM ${msg.id} from ${msg.from}`);
      }
      if (msg.type !== BRAKE_MESSAGE || ctx.isBraking()) return;
      ctx.log('brake-received', { from: msg.from, id: msg.id });
      ctx.emergencyBrake(`message ${msg.id} from ${msg.from}`);
    },
  };
}
