import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CommandStep, Waypoint } from '../core/control/waypoints.js';
import type { OccupancyGrid } from '../core/map/occupancy-grid.js';
import { straightRoadGrid } from '../core/map/straight-road.js';
import { F1TENTH_DEFAULT_PARAMS } from '../core/physics/defaults.js';
import { deriveSeed } from '../util/random.js';
import { resolveExternal } from './external-device.js';
import { type CsvRead, type ScenarioInputs, uncachedInputs } from './input-cache.js';
import { resolveNetwork } from './resolve-network.js';
import {
  type ResolvedController,
  type ResolvedLidar,
  type ResolvedScenario,
  type ResolvedTraffic,
  type ResolvedVehicle,
  SCAN_CONTROLLERS,
} from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';
import type { ControllerParsed, ScenarioParsed } from './schema.js';
import { type LidarParsed, lidarSchema } from './schema.js';
import { expandTraffic } from './traffic.js';

/**
 * Step 2 of 3: fill defaults, resolve file paths against the scenario's folder, read the files
 * they name, and merge vehicle parameters (f1tenth_gym defaults < scenario physics.params <
 * vehicle params). Missing or malformed files become problems, not throws. The map's grid comes
 * back too, so the cross-checks place the cars on it without decoding the image again.
 */
export async function normaliseScenario(
  parsed: ScenarioParsed,
  scenarioFile: string,
  inputs: ScenarioInputs = uncachedInputs,
): Promise<{ scenario?: ResolvedScenario; problems: ScenarioProblem[]; grid?: OccupancyGrid }> {
  const base = dirname(scenarioFile);
  const problems: ScenarioProblem[] = [];
  const mapFile = parsed.map === undefined ? undefined : resolve(base, parsed.map);
  let grid: OccupancyGrid | undefined;
  if (mapFile === undefined) {
    if (!parsed.traffic)
      problems.push({
        path: ['map'],
        message:
          'give the map_server YAML file the cars drive on, e.g. map: ../maps/corridor.yaml (only a traffic: block brings its own road)',
      });
  } else if (!existsSync(mapFile)) {
    problems.push({
      path: ['map'],
      message: `file ${parsed.map} not found (resolved to ${mapFile}); paths are relative to the scenario file`,
    });
  } else {
    const map = await inputs.readMap(mapFile);
    grid = map.grid;
    for (const message of map.problems) problems.push({ path: ['map'], message: `${parsed.map}: ${message}` });
  }
  let script: string | undefined;
  if (parsed.network.script) {
    script = resolve(base, parsed.network.script);
    if (!existsSync(script))
      problems.push({ path: ['network', 'script'], message: `file ${parsed.network.script} not found (resolved to ${script})` });
    else if (!statSync(script).isFile() || !script.endsWith('.cc')) {
      problems.push({
        path: ['network', 'script'],
        message: `${parsed.network.script} is not an ns-3 program's source: give a regular .cc file (resolved to ${script})`,
      });
    }
  }
  const network = resolveNetwork(parsed.network, script);
  problems.push(...network.problems);

  const vehicles: ResolvedVehicle[] = [];
  const csvFiles: CsvFiles = { inputs, once: new Map() };
  for (const [index, v] of parsed.vehicles.entries()) {
    const controller = await resolveController(
      v.controller,
      base,
      ['vehicles', index, 'controller'],
      problems,
      deriveSeed(parsed.seed, `rrt-${v.name}`),
      csvFiles,
    );
    const lidar = resolveLidar(
      v.lidar,
      controller.type,
      deriveSeed(parsed.seed, `lidar-${v.name}`),
      ['vehicles', index, 'lidar'],
      problems,
    );
    vehicles.push({
      name: v.name,
      index,
      start: v.start,
      params: { ...F1TENTH_DEFAULT_PARAMS, ...parsed.physics.params, ...v.params },
      controlRate: v.controlRate,
      observes: v.observes,
      controller,
      apps: v.apps,
      image: v.image,
      command: v.command,
      compute: v.compute,
      resources: v.resources,
      ...(lidar ? { lidar } : {}),
      ...(v.external ? { external: resolveExternal(v.external, ['vehicles', index, 'external'], problems) } : {}),
    });
  }
  let traffic: ResolvedTraffic | undefined;
  if (parsed.traffic) {
    const expanded = expandTraffic({ ...parsed, traffic: parsed.traffic }, vehicles.length, mapFile === undefined);
    problems.push(...expanded.problems);
    vehicles.push(...expanded.vehicles);
    traffic = expanded.traffic;
    if (traffic && mapFile === undefined) grid = straightRoadGrid(traffic.road);
  } else if (!vehicles.length) {
    problems.push({
      path: ['vehicles'],
      message: 'a scenario needs at least one vehicle: list them under vehicles, or generate them with a traffic: block',
    });
  }
  fillCaccMaxAge(vehicles);
  const scenario: ResolvedScenario = {
    name: parsed.name,
    description: parsed.description,
    sourceFile: scenarioFile,
    mapFile,
    duration: parsed.duration,
    seed: parsed.seed,
    geoReference: parsed.geoReference,
    physics: { timestep: parsed.physics.timestep, integrator: parsed.physics.integrator },
    network: network.network,
    timing: parsed.timing,
    vehicles,
    ...(traffic ? { traffic } : {}),
    record: parsed.record,
  };
  return { scenario: problems.length ? undefined : scenario, problems, grid };
}

async function resolveController(
  c: ControllerParsed,
  base: string,
  path: (string | number)[],
  problems: ScenarioProblem[],
  rrtSeed: number,
  csvFiles: CsvFiles,
): Promise<ResolvedController> {
  if (c.type === 'rrt') {
    const waypoints =
      typeof c.waypoints === 'string'
        ? await readCsv<Waypoint, 'x' | 'y' | 'speed'>(base, c.waypoints, ['x', 'y', 'speed'], [...path, 'waypoints'], problems, csvFiles)
        : c.waypoints;
    if (waypoints.length === 1) problems.push({ path: [...path, 'waypoints'], message: 'rrt needs at least two waypoints' });
    return { ...c, waypoints, seed: rrtSeed };
  }
  if (c.type === 'pure-pursuit') {
    const waypoints =
      typeof c.waypoints === 'string'
        ? await readCsv<Waypoint, 'x' | 'y' | 'speed'>(base, c.waypoints, ['x', 'y', 'speed'], [...path, 'waypoints'], problems, csvFiles)
        : c.waypoints;
    if (waypoints.length === 1) problems.push({ path: [...path, 'waypoints'], message: 'pure pursuit needs at least two waypoints' });
    return { ...c, waypoints };
  }
  if (c.type === 'open-loop') {
    const schedule =
      typeof c.schedule === 'string'
        ? await readCsv<CommandStep, 't' | 'speed' | 'steer'>(
            base,
            c.schedule,
            ['t', 'speed', 'steer'],
            [...path, 'schedule'],
            problems,
            csvFiles,
          )
        : c.schedule;
    for (let i = 1; i < schedule.length; i++) {
      if (schedule[i].t < schedule[i - 1].t) {
        problems.push({
          path: [...path, 'schedule'],
          message: `entry ${i} (t=${schedule[i].t}s) is earlier than the one before; sort the schedule by time`,
        });
        break;
      }
    }
    return { type: 'open-loop', schedule };
  }
  return c;
}

/** A lidar block as given (enabled by default), or the default lidar when the controller steers by the scan. */
function resolveLidar(
  given: LidarParsed | undefined,
  controller: ResolvedController['type'],
  seed: number,
  path: (string | number)[],
  problems: ScenarioProblem[],
): ResolvedLidar | undefined {
  const needsScan = SCAN_CONTROLLERS.has(controller);
  const block = given ?? (needsScan ? lidarSchema.parse({}) : undefined);
  if (!block) return undefined;
  if (!block.enabled) {
    if (needsScan)
      problems.push({
        path: [...path, 'enabled'],
        message: `the ${controller} controller steers by the lidar scan; set enabled: true or remove the lidar block`,
      });
    return undefined;
  }
  const { enabled: _enabled, ...rest } = block;
  return { ...rest, seed };
}

/** A waypoint or schedule CSV of a long track is a few MiB at most. */
const MAX_CSV_BYTES = 64 * 1024 * 1024;

/**
 * The CSV files of one normalisation, each read and parsed once (by file and columns): a
 * platoon's cars, or cars on one lane, name the same waypoints.
 */
/** The scenario's inputs, and each CSV read once per load (several cars share a waypoint file). */
type CsvFiles = { inputs: ScenarioInputs; once: Map<string, Promise<CsvRead>> };

async function readCsv<T, K extends string>(
  base: string,
  relative: string,
  columns: K[],
  path: (string | number)[],
  problems: ScenarioProblem[],
  csvFiles: CsvFiles,
): Promise<T[]> {
  const file = resolve(base, relative);
  const key = `${columns.join(',')} ${file}`;
  let once = csvFiles.once.get(key);
  if (!once) {
    once = csvFiles.inputs.readCsv(file, columns, MAX_CSV_BYTES);
    csvFiles.once.set(key, once);
  }
  const { read, rows, errors } = await once;
  if (!read.ok) {
    const where = read.problem === 'not found' ? '; paths are relative to the scenario file' : '';
    problems.push({ path, message: `file ${relative} ${read.problem} (resolved to ${file})${where}` });
    return [];
  }
  for (const e of errors.slice(0, 5)) problems.push({ path, message: `${relative} ${e}` });
  // Each car gets rows of its own, as when each read the file.
  return rows.map((row) => ({ ...row })) as unknown as T[];
}

/** `cacc`'s staleness limit when its predecessor beacons (10 Hz by default: five beacons missed) [s]. */
export const CACC_BEACON_MAX_AGE = 0.5;
/** Margin on a CAM sender's longest interval: the channel's delay and the ticks the CAM and the follower wait for [s]. */
const CACC_CAM_MARGIN = 0.1;

/**
 * A `cacc` app without `maxAge` gets one that fits what its predecessor sends: 0.5 s for beacons;
 * for CAMs alone, the predecessor's T_GenCamMax + T_CheckCamGen + 0.1 s (1.2 s by default; five
 * periods at a fixed CAM rate). The CA
 * service sends a CAM at least every T_GenCamMax, checked every T_CheckCamGen, and else only when
 * the car moved 4 m, turned 4 degrees or changed speed by 0.5 m/s: so on a channel that loses
 * nothing a CAM is never older than that, and while it is not, the car is within those bounds of
 * what it says. An older one means CAMs were lost.
 */
function fillCaccMaxAge(vehicles: { name: string; apps: ScenarioParsed['vehicles'][number]['apps'] }[]): void {
  const byName = new Map(vehicles.map((v) => [v.name, v]));
  for (const v of vehicles) {
    v.apps = v.apps.map((app) => {
      if (app.type !== 'cacc' || app.maxAge !== undefined) return app;
      const apps = byName.get(app.predecessor)?.apps ?? [];
      const cam = apps.find((a) => a.type === 'cam');
      if (!cam || apps.some((a) => a.type === 'beacon')) return { ...app, maxAge: CACC_BEACON_MAX_AGE };
      // a fixed CAM rate is a beacon's: five periods, as 0.5 s is at 10 Hz
      const maxAge = cam.rate !== undefined ? 5 / cam.rate : cam.maxInterval + (cam.checkInterval ?? cam.minInterval) + CACC_CAM_MARGIN;
      return { ...app, maxAge: +maxAge.toFixed(6) };
    });
  }
}
