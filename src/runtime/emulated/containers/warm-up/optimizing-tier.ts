import { setFlagsFromString } from 'node:v8';
import type { ResolvedVehicle } from '../../../../scenario/resolved.js';

/** Controllers whose tick is a few microseconds of arithmetic on the car's odometry. */
const LIGHT_CONTROLLERS = new Set(['pure-pursuit', 'open-loop', 'idle', 'lane-keeping']);

/**
 * Whether a car's process gains from V8's optimizing compiler. A light car's tick is mostly the
 * control link's own code, which V8 optimizes only after seconds of ticks, at about the same moment
 * in every car: with 32 cars on 2 cores those compilations came as one burst inside the run (drive
 * commands 6 % late and their lag p99 70-160 ms, against 1.4-1.8 % and 12-24 ms without them, with
 * the same CPU per tick in steady state). A car with a lidar decodes 1080 ranges per scan and a
 * planner searches: they keep it (without it, a lidar car's tick cost 1.18x).
 */
export function gainsFromOptimizingTier(spec: ResolvedVehicle): boolean {
  return spec.lidar !== undefined || !LIGHT_CONTROLLERS.has(spec.controller.type) || spec.apps.length > 0;
}

/** V8 optimizes a function once it has run this many bytecode bytes (Node 20's default). */
const INTERRUPT_BUDGET = 67584;
/** An eighth of it: a rehearsal's few hundred ticks are then enough to optimize the hot path. */
const EAGER_INTERRUPT_BUDGET = INTERRUPT_BUDGET / 8;

/** Lets V8 optimize hot functions early: during a rehearsal before the run. */
export function optimizeEagerly(): void {
  setFlagsFromString(`--interrupt-budget=${EAGER_INTERRUPT_BUDGET}`);
}

/** Back to V8's usual pace, for a process that goes on optimizing in the run (the simulator). */
export function optimizeAsUsual(): void {
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
}

/** From now on, no function of this process is optimized (what already is stays so) or leaves V8's baseline tier upwards. */
export function stopOptimizing(): void {
  setFlagsFromString('--max-opt=1');
}
