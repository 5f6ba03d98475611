import { availableParallelism, loadavg } from 'node:os';

/** How busy the machine is: the 1-minute load average and the cores it shares. */
export interface MachineLoad {
  load1: number;
  cores: number;
}

export const machineLoad = (): MachineLoad => ({ load1: loadavg()[0] ?? 0, cores: Math.max(1, availableParallelism()) });

/** A loaded machine never stretches a timeout beyond this many times its quiet value. */
export const MAX_LOAD_SCALE = 32;

/**
 * A wall-clock timeout for work that a quiet machine does within `quietMs` (an ns-3 program
 * setting up before READY): on a loaded machine a process gets about cores / (load + 1) of a core
 * (the +1 is the process itself, which the 1-minute average may not show yet), so the timeout
 * grows by (load + 1) / cores, never below the quiet value, never beyond MAX_LOAD_SCALE times it.
 * Load 15 on 2 cores: 8 times. `describe` says so in the error a timeout gives.
 */
export function loadScaledTimeout(quietMs: number, load: MachineLoad = machineLoad()): { ms: number; describe: string } {
  const load1 = Number.isFinite(load.load1) && load.load1 > 0 ? load.load1 : 0;
  const scale = Math.min(MAX_LOAD_SCALE, Math.max(1, (load1 + 1) / Math.max(1, load.cores)));
  const ms = Math.round(quietMs * scale);
  const describe =
    scale === 1
      ? `${ms} ms`
      : `${ms} ms (${quietMs} ms on a quiet machine, x${scale.toFixed(1)} for load ${load1.toFixed(1)} on ${load.cores} cores)`;
  return { ms, describe };
}
