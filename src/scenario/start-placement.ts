import { loadMapFromDisk, type MapLoader } from '../core/map/map-loader.js';
import { footprintHitsWall } from '../core/map/wall-collision.js';
import { footprintCorners, footprintsOverlap } from '../core/physics/footprint.js';
import type { ResolvedScenario } from './resolved.js';
import { loadScenarioMap } from './scenario-map.js';
import type { ScenarioProblem } from './scenario-problem.js';

/** Every car must start on free ground and clear of every other car. */
export async function checkStartPlacement(s: ResolvedScenario, loadMap: MapLoader = loadMapFromDisk): Promise<ScenarioProblem[]> {
  const grid = await loadScenarioMap(s, loadMap);
  const problems: ScenarioProblem[] = [];
  const prints = s.vehicles.map((v) => footprintCorners(v.start, v.params));
  s.vehicles.forEach((v, i) => {
    if (footprintHitsWall(prints[i], grid)) {
      problems.push({
        path: ['vehicles', i, 'start'],
        message: `the car at (${+v.start.x.toFixed(3)}, ${+v.start.y.toFixed(3)}) overlaps a wall or lies outside the map; move it onto free ground`,
      });
    }
    for (let j = 0; j < i; j++) {
      if (footprintsOverlap(prints[i], prints[j])) {
        problems.push({ path: ['vehicles', i, 'start'], message: `the car overlaps ${s.vehicles[j].name} at the start; move them apart` });
      }
    }
  });
  return problems;
}
