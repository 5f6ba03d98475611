import { loadMapFromDisk, type MapLoader } from '../core/map/map-loader.js';
import type { OccupancyGrid } from '../core/map/occupancy-grid.js';
import { straightRoadGrid } from '../core/map/straight-road.js';
import { UserInputError } from '../errors.js';
import type { ResolvedScenario } from './resolved.js';

type MapOf = Pick<ResolvedScenario, 'mapFile' | 'traffic'>;

/**
 * A scenario's map: its map file, read by `load`, or, when it names none, its traffic road made
 * in memory (core/map/straight-road.ts). Every runtime and reader of a run takes the map here.
 */
export function loadScenarioMap(s: MapOf, load: MapLoader = loadMapFromDisk): Promise<OccupancyGrid> {
  if (s.mapFile !== undefined) return load(s.mapFile);
  if (s.traffic) return Promise.resolve(straightRoadGrid(s.traffic.road));
  return Promise.reject(
    new UserInputError('the scenario has no map', ['it names no map file and has no traffic road'], 'give `map:` or a `traffic:` block'),
  );
}

/** The map as messages name it: its file, or the generated road. */
export function describeScenarioMap(s: MapOf): string {
  if (s.mapFile !== undefined) return s.mapFile;
  const road = s.traffic?.road;
  return road ? `the generated ${road.length} m road of ${road.lanes} lanes` : 'no map';
}
