import { resolve } from 'node:path';
import { loadMapFromDisk, type MapLoader } from '../core/map/map-loader.js';
import type { OccupancyGrid } from '../core/map/occupancy-grid.js';
import { UserInputError } from '../errors.js';
import { channelRuntimeProblems } from './channel-runtime.js';
import { crossCheckScenario, stabilityWarnings } from './cross-checks.js';
import { dccRuntimeProblems } from './dcc-checks.js';
import { externalNotes, unsupportedExternal } from './external-device.js';
import { ignoredFields, type RuntimeName } from './ignored-fields.js';
import { type ScenarioInputs, uncachedInputs } from './input-cache.js';
import { normaliseScenario } from './normalise.js';
import { asPlatoonProblem, expandPlatoon } from './platoon-block.js';
import { readLeaderPath } from './platoon-path.js';
import type { ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';
import { readScenarioText } from './scenario-text.js';
import { type ScenarioParsed, scenarioSchema, VEHICLE_NAME } from './schema.js';
import { describeIssues, show } from './schema-issues.js';
import { asTrafficProblems } from './traffic-problems.js';
import type { PathSegment } from './yaml-source.js';

export interface LoadScenarioOptions {
  /** `path=value` assignments applied before validation, as given to `--set`. */
  overrides?: readonly string[];
  /** How the map is read for the start-placement check (a sweep passes a caching one). */
  loadMap?: MapLoader;
  /** How the map and CSV files are read and parsed (a sweep passes `cachingInputs()`, shared by its loads). */
  inputs?: ScenarioInputs;
  /** The runtime that will run it: fields it ignores become `warnings`, what it cannot run is refused. */
  runtime?: RuntimeName;
}

export const formatPath = (path: readonly PathSegment[]) =>
  path.reduce<string>((acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');

export const formatProblem = (p: ScenarioProblem & { fromSet?: boolean }) =>
  `${formatPath(p.path) || '(top level)'}${p.fromSet ? ' (from --set)' : p.line ? ` (line ${p.line})` : ''}: ${p.message}`;

/**
 * Reads, validates and resolves a scenario in three steps (shape, normalisation, cross-field rules).
 * Every problem found is reported together in one UserInputError; nothing on the host is touched.
 */
export async function loadScenario(file: string, options: LoadScenarioOptions = {}): Promise<ResolvedScenario> {
  const absolute = resolve(file);
  const fail = (details: string[]) =>
    new UserInputError(`${file} is not a valid scenario`, shortList(details), 'fix the fields listed and run `cavsim validate` again');
  const text = await readScenarioText(file, absolute);
  const { source, errors } = (options.inputs ?? uncachedInputs).parseScenario(absolute, text);
  if (!source) throw fail(errors);
  const overrideErrors = (options.overrides ?? []).flatMap((o) => source.set(o) ?? []);
  if (overrideErrors.length) throw fail(overrideErrors);

  const written = source.toJS();
  const topLevel = topLevelProblem(written);
  if (topLevel) throw fail([topLevel]);
  const platoon = expandPlatoon(written as Record<string, unknown>, await readLeaderPath(written as Record<string, unknown>, absolute));
  const data = platoon.data;
  const located = (p: ScenarioProblem) =>
    formatProblem({
      ...p,
      path: withVehicleNames(p.path, data),
      line: p.line ?? source.lineOf(p.path),
      fromSet: source.isOverridden(p.path),
    });
  if (platoon.problems.length) throw fail(platoon.problems.map(located));
  const parsed = scenarioSchema.safeParse(data);
  if (!parsed.success) throw fail(describeIssues(parsed.error.issues, data, scenarioSchema).map(located));

  const normalised = await normaliseScenario(parsed.data as ScenarioParsed, absolute, options.inputs);
  const problems = [...normalised.problems];
  if (normalised.scenario)
    problems.push(
      ...(await crossCheckScenario(normalised.scenario, options.loadMap ?? decodedOnce(normalised.scenario.mapFile, normalised.grid))),
    );
  if (normalised.scenario && options.runtime)
    problems.push(
      ...unsupportedExternal(normalised.scenario, options.runtime),
      ...dccRuntimeProblems(normalised.scenario, options.runtime),
      ...channelRuntimeProblems(normalised.scenario, options.runtime),
    );
  if (normalised.scenario) problems.splice(0, problems.length, ...asTrafficProblems(problems, normalised.scenario));
  if (platoon.followers?.length) {
    const names = ((data as { vehicles?: { name?: unknown }[] }).vehicles ?? []).map((v) => v?.name);
    problems.splice(0, problems.length, ...problems.map((p) => asPlatoonProblem(p, names, platoon.followers!)));
  }
  if (problems.length) throw fail(problems.map(located));
  const scenario = normalised.scenario!;
  const runtimeWarnings = options.runtime ? [...ignoredFields(scenario, options.runtime), ...externalNotes(scenario, options.runtime)] : [];
  const warnings = asTrafficProblems([...runtimeWarnings, ...stabilityWarnings(scenario)], scenario).map(located);
  if (warnings.length) scenario.warnings = warnings;
  return scenario;
}

/** The map normalisation decoded, for the cross-checks; any other map is loaded from disk. */
function decodedOnce(mapFile: string | undefined, grid: OccupancyGrid | undefined): MapLoader | undefined {
  return grid ? (yamlPath) => (yamlPath === mapFile ? Promise.resolve(grid) : loadMapFromDisk(yamlPath)) : undefined;
}

/** A file that is not a scenario at all can produce hundreds of problems; the first ones say enough. */
const MAX_PROBLEMS_SHOWN = 20;
const shortList = (details: string[]) =>
  details.length <= MAX_PROBLEMS_SHOWN
    ? details
    : [...details.slice(0, MAX_PROBLEMS_SHOWN), `... and ${details.length - MAX_PROBLEMS_SHOWN} more problems`];

const REQUIRED_FIELDS = 'name, map, duration and vehicles (or name, duration and traffic)';

function topLevelProblem(data: unknown): string | undefined {
  if (data === null || data === undefined)
    return `the file is empty; a scenario needs at least ${REQUIRED_FIELDS} (see scenarios/head-on-brake.yaml)`;
  if (typeof data !== 'object' || Array.isArray(data)) {
    return `a scenario is a mapping of fields (${REQUIRED_FIELDS}), but the file holds ${show(data)}; see scenarios/head-on-brake.yaml`;
  }
  return undefined;
}

/** `vehicles[1].start` reads as `vehicles.car1.start` when car names are unique, as `--set` accepts it. */
function withVehicleNames(path: readonly PathSegment[], data: unknown): PathSegment[] {
  if (path[0] !== 'vehicles' || typeof path[1] !== 'number') return [...path];
  const vehicles = (data as { vehicles?: unknown }).vehicles;
  if (!Array.isArray(vehicles)) return [...path];
  const names = vehicles.map((v) => (v as { name?: unknown } | null)?.name);
  const name = names[path[1]];
  const unique = typeof name === 'string' && VEHICLE_NAME.test(name) && names.filter((n) => n === name).length === 1;
  return unique ? ['vehicles', name, ...path.slice(2)] : [...path];
}
