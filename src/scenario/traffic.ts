import { laneCentreY, roadMapSpan, type StraightRoad } from '../core/map/straight-road.js';
import { roundDown, roundUp } from '../core/physics/parameter-ranges.js';
import type { VehicleParams } from '../core/physics/types.js';
import { VEHICLE_PRESETS } from '../core/physics/vehicle-presets.js';
import { createRandom, deriveSeed } from '../util/random.js';
import { laneKeepingSchema } from './controller-schema.js';
import type { ResolvedController, ResolvedTraffic, ResolvedVehicle } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';
import { COMPUTE_DEFAULTS, type ScenarioParsed } from './schema.js';
import { laneCounts, laneSpacing, MIN_BUMPER_GAP_M, placeTraffic, roadCapacity, trafficCount } from './traffic-placement.js';
import type { TrafficParsed } from './traffic-schema.js';
import { MAX_VEHICLES } from './vehicle-limit.js';

/** The longest map a traffic road generates, run-out included [m]: 100,000 cells along it. */
export const MAX_ROAD_MAP_LENGTH_M = 50_000;

const at = (...path: (string | number)[]) => ['traffic', ...path];
const round = (v: number, digits = 3) => +v.toFixed(digits);

/**
 * Step 2 for a `traffic:` block: its cars as ordinary vehicles, after the `first` written ones,
 * placed by placeTraffic (seeded by the scenario's seed), each keeping its lane's speed with the
 * lane-keeping controller (parked ones idle). Their parameters are the named set, then
 * physics.params, then the block's params; all of them share one object.
 */
export function expandTraffic(
  parsed: Pick<ScenarioParsed, 'seed' | 'duration' | 'physics'> & { traffic: TrafficParsed },
  first: number,
  mapGenerated: boolean,
): { vehicles: ResolvedVehicle[]; traffic?: ResolvedTraffic; problems: ScenarioProblem[] } {
  const t = parsed.traffic;
  const fail = (path: (string | number)[], message: string) => ({ vehicles: [], problems: [{ path: at(...path), message }] });
  const params: VehicleParams = { ...VEHICLE_PRESETS[t.vehicle], ...parsed.physics.params, ...t.params };
  const km = t.road.length / 1000;
  const count = trafficCount(t.density, t.road.length);
  if (t.speedSpread > t.speed)
    return fail(
      ['speedSpread'],
      `${t.speedSpread} m/s is more than the speed (${t.speed} m/s): a lane cannot drive backwards; use at most ${t.speed}m/s`,
    );
  if (count < 1)
    return fail(['density'], `${t.density}/km on ${round(km)} km of road is no car; use at least ${roundUp(1 / km)}/km, or a longer road`);
  if (first + count > MAX_VEHICLES) {
    const written = first ? ` and the ${first} written under vehicles` : '';
    const room = MAX_VEHICLES - first;
    const fix = room > 0 ? `use at most ${roundDown(room / km)}/km, or a shorter traffic.road.length` : 'write fewer vehicles';
    return fail(
      ['density'],
      `${t.density}/km on ${round(km)} km of road is ${count} cars${written}, more than the ${MAX_VEHICLES} a scenario holds; ${fix}`,
    );
  }
  if (t.road.laneWidth <= params.width)
    return fail(
      ['road', 'laneWidth'],
      `a ${t.road.laneWidth} m lane is too narrow for a ${t.vehicle} (${params.width} m wide): cars in neighbouring lanes would overlap; use at least ${roundUp(params.width + 0.1)}m`,
    );
  const fullest = laneCounts(count, t.road.lanes)[0];
  const capacity = roadCapacity(t.road, params.length);
  if (count > capacity) {
    const fix = capacity > 0 ? `use at most ${roundDown(capacity / km)}/km, or more lanes (traffic.road.lanes)` : 'make the road longer';
    return fail(
      ['density'],
      `${t.density}/km puts a lane's cars ${round(laneSpacing(t.road.length, fullest))} m apart (centre to centre), but a ${t.vehicle} is ` +
        `${params.length} m long and cars keep at least ${MIN_BUMPER_GAP_M} m between bumpers; ${fix}`,
    );
  }

  const speeds = laneSpeeds(t, deriveSeed(parsed.seed, 'traffic-speeds'));
  const road: StraightRoad = { ...t.road, runOut: round(Math.max(...speeds) * parsed.duration) };
  const span = roadMapSpan(road);
  if (mapGenerated && span.to - span.from > MAX_ROAD_MAP_LENGTH_M) {
    return fail(
      ['speed'],
      `the fastest lane drives ${round(road.runOut / 1000)} km in the run's ${parsed.duration} s, so the road's map would be ` +
        `${round((span.to - span.from) / 1000)} km long, more than ${MAX_ROAD_MAP_LENGTH_M / 1000} km; shorten the duration, lower the speed, or give a map`,
    );
  }
  const controllers = speeds.map((speed, lane): ResolvedController => {
    if (speed === 0) return { type: 'idle' };
    return laneKeepingSchema.parse({ type: 'lane-keeping', y: laneCentreY(road, lane), speed });
  });
  const placed = placeTraffic(road, count, params.length, t.jitter, createRandom(deriveSeed(parsed.seed, 'traffic')));
  const vehicles = placed.map(
    (car, k): ResolvedVehicle => ({
      name: `${t.namePrefix}${k}`,
      index: first + k,
      start: { x: car.x, y: car.y, yaw: 0, speed: speeds[car.lane] },
      params,
      controlRate: t.controlRate,
      observes: [],
      controller: controllers[car.lane],
      apps: t.apps,
      compute: COMPUTE_DEFAULTS,
      resources: {},
    }),
  );
  return {
    vehicles,
    traffic: { road, density: t.density, vehicle: t.vehicle, laneSpeeds: speeds, namePrefix: t.namePrefix, first, count },
    problems: [],
  };
}

/** Each lane's speed: `speed`, or with a spread one seeded draw per lane from speed ± spread. */
function laneSpeeds(t: TrafficParsed, seed: number): number[] {
  const random = createRandom(seed);
  return Array.from({ length: t.road.lanes }, () => (t.speedSpread > 0 ? round(t.speed + t.speedSpread * (2 * random() - 1)) : t.speed));
}
