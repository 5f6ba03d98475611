import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gridToJson } from '../../core/map/grid-json.js';
import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import { RUN_FILES } from '../../run/run-files.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { loadScenarioMap } from '../../scenario/scenario-map.js';
import { writeFileNoFollow } from '../../util/write-no-follow.js';
import { appsNeedMap } from '../../world/create-apps.js';

/**
 * `map/grid.json` in the run folder when a car's apps look at the map (a CPM leaves its walls out of
 * the objects it reports, as in the simulated runtime): the vehicle container reads the walls from
 * it, loading no YAML. Returns the file written, or undefined when no car needs it.
 */
export async function writeMapGrid(
  scenario: ResolvedScenario,
  runDir: string,
  load?: (file: string) => Promise<OccupancyGrid>,
): Promise<string | undefined> {
  if (!scenario.vehicles.some(appsNeedMap)) return undefined;
  const grid = await loadScenarioMap(scenario, load);
  const file = join(runDir, RUN_FILES.mapGrid);
  mkdirSync(dirname(file), { recursive: true });
  writeFileNoFollow(file, JSON.stringify(gridToJson(grid)));
  return file;
}
