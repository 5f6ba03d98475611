import { laneCentreY, type StraightRoad } from '../core/map/straight-road.js';

/** The least room between the bumpers of two cars in a lane, at the start and after jitter [m]. */
export const MIN_BUMPER_GAP_M = 1;

/** Cars a density puts on a road: vehicles per km over all lanes, times the road's kilometres. */
export const trafficCount = (densityPerKm: number, roadLength: number) => Math.round((densityPerKm * roadLength) / 1000);

/** How many of `count` cars each lane holds: as even as can be, the first lanes one more. */
export const laneCounts = (count: number, lanes: number) =>
  Array.from({ length: lanes }, (_, lane) => Math.floor(count / lanes) + (lane < count % lanes ? 1 : 0));

/** The most cars the road holds with at least MIN_BUMPER_GAP_M between bumpers in every lane. */
export const roadCapacity = (road: Pick<StraightRoad, 'length' | 'lanes'>, carLength: number) =>
  road.lanes * Math.floor(road.length / (carLength + MIN_BUMPER_GAP_M));

/** A lane's distance between neighbouring cars' centres when it holds `cars` [m]. */
export const laneSpacing = (roadLength: number, cars: number) => roadLength / cars;

export interface PlacedCar {
  x: number;
  y: number;
  lane: number;
}

/**
 * Where `count` cars of `carLength` stand on the road: each lane's cars evenly spaced along it
 * (lane after lane shifted by a fraction of the spacing, so neighbouring lanes' cars are not side
 * by side), each then moved by up to `jitter` times half the room its spacing leaves beyond a car
 * length and MIN_BUMPER_GAP_M (`random`: a seeded draw in [0, 1)). A lane wraps around the road's
 * length, so every centre lies in [0, length). Sorted from the back of the road to its front.
 * The caller has checked that the road holds them (`roadCapacity`).
 */
export function placeTraffic(
  road: Pick<StraightRoad, 'length' | 'lanes' | 'laneWidth'>,
  count: number,
  carLength: number,
  jitter: number,
  random: () => number,
): PlacedCar[] {
  const cars: PlacedCar[] = [];
  laneCounts(count, road.lanes).forEach((n, lane) => {
    if (n === 0) return;
    const spacing = laneSpacing(road.length, n);
    const room = Math.max(0, spacing - carLength - MIN_BUMPER_GAP_M);
    const stagger = (lane * spacing) / road.lanes;
    const y = laneCentreY(road, lane);
    for (let k = 0; k < n; k++) {
      const shift = jitter > 0 ? jitter * (room / 2) * (2 * random() - 1) : 0;
      const along = ((k + 0.5) * spacing + stagger + shift) % road.length;
      cars.push({ x: along < 0 ? along + road.length : along, y, lane });
    }
  });
  return cars.sort((a, b) => a.x - b.x || a.lane - b.lane);
}
