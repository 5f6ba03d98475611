import type { VehicleApp } from '../../control/vehicle-context.js';

export type ScriptedEventOptions = { at: number } & ({ brake: number; speed?: undefined } | { speed: number; brake?: undefined });

/**
 * At `at` the car brakes at `brake` m/s^2 down to a stop (its commanded speed falls from what it
 * was doing at that moment at that rate), or changes its speed to `speed`; the controller keeps
 * steering. A leader braking hard at a set time is the usual platoon disturbance.
 */
export function createScriptedEvent(opts: ScriptedEventOptions): VehicleApp {
  let from: { t: number; v: number } | undefined;
  return {
    onTick(ctx) {
      const now = ctx.now();
      if (now + 1e-9 < opts.at) return;
      if (!from) {
        from = { t: now, v: ctx.own()?.v ?? 0 };
        ctx.log(
          'scripted-event',
          opts.brake !== undefined ? { brake_mps2: opts.brake, from_speed_mps: from.v } : { speed_mps: opts.speed },
        );
      }
      ctx.overrideSpeed(opts.brake !== undefined ? Math.max(0, from.v - opts.brake * (now - from.t)) : opts.speed);
    },
  };
}
