import type { RunEvent } from '../../../run/events.js';

type ProgressCars = Extract<RunEvent, { type: 'progress' }>['cars'];

/** Up to this many cars a progress line names each one; above it, it sums them up (181 cars made 2.6 kB lines). */
export const CARS_NAMED_MAX = 12;

/** Each car's speed and state (`car0 10.0m/s BRAKE`), or for many cars their count, speed range and how many brake or hit. */
export function progressCars(cars: ProgressCars): string {
  if (cars.length <= CARS_NAMED_MAX)
    return cars.map((c) => `${c.name} ${c.v.toFixed(1)}m/s${c.braking ? ' BRAKE' : ''}${c.collided ? ' HIT' : ''}`).join(', ');
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let braking = 0;
  let hit = 0;
  for (const c of cars) {
    min = Math.min(min, c.v);
    max = Math.max(max, c.v);
    sum += c.v;
    if (c.braking) braking++;
    if (c.collided) hit++;
  }
  return `${cars.length} cars ${min.toFixed(1)}-${max.toFixed(1)}m/s (mean ${(sum / cars.length).toFixed(1)}), ${braking} braking, ${hit} hit`;
}
