import type { VehicleApp } from './vehicle-context.js';

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
}

/**
 * An event warning (decentralised environmental notification, in ETSI terms): once triggered,
 * sent `to` one car or all, every `every` for `for` seconds, so a receiver that missed one
 * copy may get the next.
 */
export function createWarning(opts: WarningOptions): VehicleApp {
  let started: number | undefined;
  let sent = 0;
  let previous: { t: number; v: number } | undefined;
  return {
    onTick(ctx) {
      const now = ctx.now();
      const own = ctx.own();
      if (started === undefined) {
        let deceleration = 0;
        if (own && previous && own.t > previous.t) deceleration = (previous.v - own.v) / (own.t - previous.t);
        if (own) previous = { t: own.t, v: own.v };
        const due = opts.at !== undefined ? now + 1e-9 >= opts.at : opts.deceleration !== undefined && deceleration > opts.deceleration;
        if (!due) return;
        started = now;
        ctx.log('warning-started', { event: opts.event, to: opts.to });
      }
      if (now - started > opts.for + 1e-9 || now + 1e-9 < started + sent * opts.every) return;
      ctx.send(opts.to, WARNING_MESSAGE, { event: opts.event, copy: ++sent, started_s: started });
    },
  };
}

export interface WarningReceiverOptions {
  /** `brake`: an emergency stop; `slow`: take the speed down to `speed`. */
  react: 'brake' | 'slow';
  speed?: number;
}

/** Reacts to the first warning it receives (later copies change nothing). */
export function createWarningReceiver(opts: WarningReceiverOptions): VehicleApp {
  let reacted = false;
  return {
    onMessage(ctx, msg) {
      if (msg.type !== WARNING_MESSAGE || reacted) return;
      reacted = true;
      ctx.log('warning-received', { from: msg.from, id: msg.id, event: msg.body.event });
      if (opts.react === 'brake') ctx.emergencyBrake(`warning ${msg.id} from ${msg.from}`);
      else ctx.overrideSpeed(opts.speed ?? 0);
    },
  };
}
