import type { VehicleApp } from './vehicle-context.js';
import type { CommandStep } from './waypoints.js';

/**
 * Plays back a command schedule for dynamics studies: at time t the entry with the largest
 * start time <= t applies and holds until the next; before the first entry nothing is sent.
 */
export function createOpenLoop(schedule: readonly CommandStep[]): VehicleApp {
  let next = 0;
  return {
    onTick(ctx) {
      const now = ctx.now();
      while (next < schedule.length && schedule[next].t <= now + 1e-9) next++;
      if (next === 0) return;
      const step = schedule[next - 1];
      ctx.drive({ speed: step.speed, steer: step.steer });
    },
  };
}
