import { setFlagsFromString } from 'node:v8';
import type { ResolvedVehicle } from '../../../scenario/resolved.js';

/** Controllers whose tick is a few microseconds of arithmetic on the car's odometry. */
const LIGHT_CONTROLLERS = new Set(['pure-pursuit', 'open-loop', 'idle']);

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

/**
 * V8 optimizes a function once it has run this many bytecode bytes; an eighth of Node 20's
 * default, so the control link's hot path is optimized within the rehearsal's few hundred ticks.
 */
const EAGER_INTERRUPT_BUDGET = 8448;

/** Lets V8 optimize hot functions early: for a light car, during its rehearsal. */
export function optimizeEagerly(): void {
  setFlagsFromString(`--interrupt-budget=${EAGER_INTERRUPT_BUDGET}`);
}

/** From now on, no function of this process is optimized (what already is stays so) or leaves V8's baseline tier upwards. */
export function stopOptimizing(): void {
  setFlagsFromString('--max-opt=1');
}
