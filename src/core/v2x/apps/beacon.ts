import { createRandom, deriveSeed } from '../../../util/random.js';
import type { VehicleApp } from '../../control/vehicle-context.js';
import { accelerationTracker } from '../facilities/sending-schedule.js';

export const BEACON_MESSAGE = 'beacon';

export interface BeaconOptions {
  rate: number; // [Hz]
  size: number; // payload bytes
  to: string;
  /** reactive: no beacon sooner after the last than the car's congestion control allows. */
  dcc?: 'off' | 'reactive';
}

/**
 * Broadcasts the car's own state (pose, speed, acceleration, yaw rate, stamp) `rate` times a
 * second, padded to `size` bytes. Each car starts at its own offset within the period, fixed by its
 * name, so cars with the same rate do not all transmit in the same instant. With `dcc: reactive` a
 * beacon due sooner after the last than the car's DCC allows waits for the first tick it allows.
 */
export function createBeacon(name: string, opts: BeaconOptions): VehicleApp {
  const period = 1 / opts.rate;
  let next: number | undefined;
  let last = Number.NEGATIVE_INFINITY;
  const accelerationOf = accelerationTracker();
  return {
    onTick(ctx) {
      const own = ctx.own();
      if (!own) return;
      const acceleration = accelerationOf(own);
      const now = ctx.now();
      next ??= now + createRandom(deriveSeed(0, `beacon-${name}`))() * period;
      if (now + 1e-9 < next) return;
      if (opts.dcc === 'reactive' && now - last < (ctx.dccInterval?.() ?? 0) - 1e-9) return;
      last = now;
      next += period * Math.max(1, Math.floor((now - next) / period) + 1);
      const state = { x: own.x, y: own.y, yaw: own.yaw, v: own.v, a: acceleration, yawRate: own.yawRate, stamp: own.t };
      ctx.send(opts.to, BEACON_MESSAGE, state, { sizeBytes: opts.size });
    },
  };
}
