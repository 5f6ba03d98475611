import { createRandom, deriveSeed } from '../../../util/random.js';
import type { Odometry } from '../../control/vehicle-context.js';

/**
 * The car's longitudinal acceleration, from the speeds of consecutive odometry: what beacons, CAMs
 * and CPMs report of their sender. Call it once per tick with the car's own odometry.
 */
export function accelerationTracker(): (own: Odometry) => number {
  // the previous odometry's time and speed, kept as numbers: called for every car at every tick
  let seen = false;
  let previousT = 0;
  let previousV = 0;
  let acceleration = 0;
  return (own) => {
    if (seen && own.t > previousT) acceleration = (own.v - previousV) / (own.t - previousT);
    seen = true;
    previousT = own.t;
    previousV = own.v;
    return acceleration;
  };
}

/**
 * A check every `period` seconds, starting at an offset within the first period fixed by `seedName`
 * (so cars with the same period do not all send in the same instant): true at the first tick at or
 * after each check time; checks a slow tick has passed are skipped, not made up.
 */
export function periodicChecks(seedName: string, period: number): (now: number) => boolean {
  let next: number | undefined;
  return (now) => {
    next ??= now + createRandom(deriveSeed(0, seedName))() * period;
    if (now + 1e-9 < next) return false;
    next += period * Math.max(1, Math.floor((now - next) / period + 1e-9) + 1);
    return true;
  };
}
