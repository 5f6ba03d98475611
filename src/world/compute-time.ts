import type { ResolvedCompute } from '../scenario/resolved.js';

/** What one control tick cost on this host [s]: wall clock, and CPU time where it could be read. */
export interface TickCost {
  wallS: number;
  cpuS?: number;
}

/**
 * The virtual time a tick's output (drive command, V2V sends) is ready after the tick [s]: none, a
 * fixed time, or what it measured (its CPU time where readable, else wall clock) times `scale`.
 */
export function computeDelay(compute: ResolvedCompute, cost: TickCost): number {
  switch (compute.model) {
    case 'none':
      return 0;
    case 'fixed':
      return compute.fixed;
    case 'measured':
      return (cost.cpuS ?? cost.wallS) * compute.scale;
  }
}

/**
 * The physics step whose update first uses a command answered at step `tickStep` after `delay`:
 * as in emulation, where step m is computed at t0 + m*dt with the latest command then, a command
 * ready within one step acts at the next step, and a later one as many steps later as it took.
 */
export function firstStepActing(tickStep: number, delay: number, timestep: number): number {
  return tickStep + Math.max(1, Math.ceil(delay / timestep - 1e-9));
}
