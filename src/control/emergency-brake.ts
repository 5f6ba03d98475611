import { timeToCollision } from '../measurement/ttc.js';
import type { VehicleApp } from './vehicle-context.js';

export const BRAKE_MESSAGE = 'emergency-brake';

/**
 * The thesis's car0 module: watches TTC (Eq. 3.7) to every observed car and, the first time it
 * falls below the threshold, sends one brake message and (optionally) brakes itself.
 */
export function createTtcBrakeSender(opts: { threshold: number; to: string; brakeSelf: boolean }): VehicleApp {
  let sent = false;
  return {
    onTick(ctx) {
      if (sent) return;
      const own = ctx.own();
      if (!own) return;
      for (const [name, other] of ctx.others()) {
        const ttc = timeToCollision(own, other);
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

/** The thesis's car1 module: brakes as soon as a brake message arrives. */
export function createBrakeReceiver(): VehicleApp {
  return {
    onMessage(ctx, msg) {
      if (msg.type !== BRAKE_MESSAGE || ctx.isBraking()) return;
      ctx.log('brake-received', { from: msg.from, id: msg.id });
      ctx.emergencyBrake(`message ${msg.id} from ${msg.from}`);
    },
  };
}
