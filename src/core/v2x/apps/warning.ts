import type { VehicleApp, VehicleContext } from '../../control/vehicle-context.js';
import { concerns, DENM_MESSAGE, DenOriginator, DenReceiver } from '../facilities/den-service.js';
import { DENM_EVENT_DEFAULTS, denmEventOf, denParamsOf } from '../facilities/denm-dissemination.js';
import type { DenmEvent } from '../facilities/denm-events.js';
import type { StationFacts } from '../facilities/vehicle-state.js';
import type { GeoReference } from '../networking/geo-reference.js';

export const WARNING_MESSAGE = 'warning';

export interface WarningOptions {
  /** Start at this time, or when the car first decelerates harder than `deceleration` [s, m/s^2]. */
  at?: number;
  deceleration?: number;
  /** Repeat every `every` for `for` seconds [s]. */
  every: number;
  for: number;
  to: string;
  /** What the message says happened, e.g. hard-braking. */
  event: string;
  /** `json`: cavsim's own message; `denm`: an ETSI DENM with the event's cause code. */
  format?: 'json' | 'denm';
}

/** What a DENM warning needs of its car: its station and where the map is on Earth. */
export interface DenmStation {
  station: StationFacts;
  geoReference: GeoReference;
}

/**
 * An event warning (decentralised environmental notification, in ETSI terms): once triggered,
 * sent `to` one car or all, every `every` for `for` seconds, so a receiver that missed one
 * copy may get the next. `format: denm` sends it as a DENM through the DEN basic service
 * (den-service.ts): a new DENM repeated every `every` for `for`, valid that long (at least 1 s),
 * geo-broadcast to the event's default relevance circle.
 */
export function createWarning(opts: WarningOptions, denm?: DenmStation): VehicleApp {
  let started: number | undefined;
  let sent = 0;
  let previous: { t: number; v: number } | undefined;
  let service: DenOriginator | undefined;
  if (opts.format === 'denm') {
    if (!denm) throw new Error('a DENM warning needs its station and geo reference');
    const on = opts.event as DenmEvent;
    if (!DENM_EVENT_DEFAULTS[on]) throw new Error(`no DENM cause code for the event ${opts.event}`);
    const params = denParamsOf({
      on,
      validity: Math.max(1, Math.ceil(opts.for - 1e-9)),
      repetitionInterval: opts.every,
      repetitionDuration: opts.for,
      scope: 'geo-broadcast',
      hops: 10,
    });
    service = new DenOriginator(denm.station, denm.geoReference, params);
  }
  return {
    onTick(ctx) {
      const now = ctx.now();
      const own = ctx.own();
      if (started === undefined) {
        let deceleration = 0;
        if (own && previous && own.t > previous.t) deceleration = (previous.v - own.v) / (own.t - previous.t);
        if (own) previous = { t: own.t, v: own.v };
        const due = opts.at !== undefined ? now + 1e-9 >= opts.at : opts.deceleration !== undefined && deceleration > opts.deceleration;
        if (!due || (service && !own)) return;
        started = now;
        ctx.log('warning-started', { event: opts.event, to: opts.to, ...(service ? { format: 'denm' } : {}) });
        service?.trigger(now, own!);
      }
      if (service) return service.tick(ctx, now);
      if (now - started > opts.for + 1e-9 || now + 1e-9 < started + sent * opts.every) return;
      ctx.send(opts.to, WARNING_MESSAGE, { event: opts.event, copy: ++sent, started_s: started });
    },
  };
}

export interface WarningReceiverOptions {
  /** `brake`: an emergency stop; `slow`: take the speed down to `speed`. */
  react: 'brake' | 'slow';
  speed?: number;
  /** React only to warnings of these events (default: any). */
  events?: string[];
}

/**
 * Reacts to the first warning it receives (later copies change nothing): a JSON `warning`, or a
 * DENM that the receiving DEN basic service passes on as a new event (or an update of one it had
 * not reacted to) and whose relevance traffic direction takes in this car. With `react: slow`,
 * the cancellation of the DENM it slowed for gives the speed back to the controller.
 */
export function createWarningReceiver(opts: WarningReceiverOptions, geoReference?: GeoReference): VehicleApp {
  let reacted: { actionId?: string } | undefined;
  const dens = geoReference ? new DenReceiver(geoReference) : undefined;
  const wanted = (event: string | undefined) => !opts.events || (event !== undefined && opts.events.includes(event));
  const react = (ctx: VehicleContext, reason: string) => {
    if (opts.react === 'brake') ctx.emergencyBrake(reason);
    else ctx.overrideSpeed(opts.speed ?? 0);
  };
  return {
    onMessage(ctx, msg) {
      if (msg.type === WARNING_MESSAGE) {
        if (reacted || !wanted(String(msg.body.event))) return;
        reacted = {};
        ctx.log('warning-received', { from: msg.from, id: msg.id, event: msg.body.event });
        return react(ctx, `warning ${msg.id} from ${msg.from}`);
      }
      if (msg.type !== DENM_MESSAGE || !dens || !geoReference) return;
      const got = dens.receive(msg, ctx.now(), ctx.own());
      if (!got) return;
      const m = got.denm.management;
      const actionId = `${m.actionId.originatingStationId}/${m.actionId.sequenceNumber}`;
      if (got.kind === 'cancellation' && reacted?.actionId === actionId && opts.react === 'slow') {
        ctx.log('warning-cancelled', { from: msg.from, id: msg.id });
        ctx.overrideSpeed(undefined);
        return;
      }
      if (reacted || (got.kind !== 'new' && got.kind !== 'update')) return;
      const cause = got.denm.situation?.eventType;
      const event = cause ? denmEventOf(cause) : undefined;
      const own = ctx.own();
      if (!wanted(event) || (own && !concerns(got.denm, geoReference, own))) return;
      reacted = { actionId };
      ctx.log('warning-received', {
        from: msg.from,
        id: msg.id,
        event: event ?? 'unknown',
        format: 'denm',
        cause: cause?.causeCode,
        sub_cause: cause?.subCauseCode,
        detected_s: m.detectionTime / 1000,
      });
      react(ctx, `DENM ${msg.id} from ${msg.from}`);
    },
  };
}
