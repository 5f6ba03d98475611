import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { cachingMapLoader } from '../core/map/map-loader.js';
import { UserInputError } from '../errors.js';
import { whyIgnored } from '../scenario/ignored-fields.js';
import { cachingInputs } from '../scenario/input-cache.js';
import { loadScenario } from '../scenario/load-scenario.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { stepsPerPeriod } from '../world/step-schedule.js';
import { parseCriteria } from './criteria.js';
import { expandGrid, parseAxis, type SweepAxis, splitAxes, zipAxes } from './grid.js';
import { checkRepeat, checkRunCount } from './limits.js';
import type { Runtime, SweepSpec } from './sweep-folder.js';
import { parseSweepValues, type SweepValue, unitFactor } from './values.js';

/** What the user asked for, as the CLI (or a script) hands it over. */
export interface SweepRequest {
  scenario: string;
  /** `--delay VALUES`, the same as `--set network.delay=VALUES`. */
  delay?: string;
  /** `--density VALUES`, the same as `--set traffic.density=VALUES`. */
  density?: string;
  /** `path=VALUES` items of `--set`. */
  sets: string[];
  /** `--zip`: these swept fields advance together (empty: all of them). */
  zip?: string[];
  repeat: number;
  runtime: Runtime;
  critical?: { path: string; range: string; tolerance: string; coarse?: number };
  /** `--criterion` values (collision when none). */
  criteria?: string[];
}

/** Short names accepted by --find-critical. */
const FIELD_ALIASES: Record<string, string> = {
  delay: 'network.delay',
  loss: 'network.loss',
  'data-rate': 'network.dataRate',
  density: 'traffic.density',
};

export const fieldPath = (name: string) => FIELD_ALIASES[name] ?? name;

export const DEFAULT_COARSE_SAMPLES = 5;

export type PlannedSweep = Omit<SweepSpec, 'schema' | 'id' | 'created'>;

/**
 * Decides the whole sweep before anything runs: the axes, the grid, the seeds, and that every
 * swept value makes a valid scenario (each value is checked once against the scenario's rules).
 */
export async function planSweep(request: SweepRequest): Promise<PlannedSweep> {
  const scenario = resolve(request.scenario);
  checkRepeat(request.repeat);
  const criteria = request.criteria?.length ? { criteria: parseCriteria(request.criteria).map((c) => c.name) } : {};
  const axes = [
    ...(request.delay === undefined ? [] : [parseAxis(`network.delay=${request.delay}`, '--delay')]),
    ...(request.density === undefined ? [] : [parseAxis(`traffic.density=${request.density}`, '--density')]),
    ...request.sets.map((s) => parseAxis(s)),
  ];
  const split = splitAxes(axes);
  const { fixed } = split;
  const flagOf = (path: string) =>
    path === 'network.delay' && request.delay !== undefined
      ? '--delay'
      : path === 'traffic.density' && request.density !== undefined
        ? '--density'
        : `--set ${path}`;
  const swept = request.zip ? zipAxes(split.swept, request.zip.map(fieldPath), flagOf) : split.swept;
  const critical = request.critical && planCritical(request.critical);
  refuseTrafficFieldsWithoutTraffic(scenario, [...axes.map((a) => a.path), ...(critical ? [critical.path] : [])], flagOf);
  refuseIgnoredAxes([...swept.map((a) => a.path), ...(critical ? [critical.path] : [])], request.runtime);
  if (critical) checkRunCount(critical.coarse * request.repeat, [`--coarse ${critical.coarse}`, `--repeat ${request.repeat}`]);
  else
    checkRunCount(
      swept.reduce((n, a) => n * a.values.length, request.repeat),
      [
        ...swept.map((a) => `${a.values.length} values of ${[a.path, ...(a.zipped ?? []).map((z) => z.path)].join('+')}`),
        `--repeat ${request.repeat}`,
      ],
    );
  const base = await loadScenario(scenario, { overrides: fixed, runtime: request.runtime });
  const baseSeed = base.seed;
  const warnings = base.warnings ? { warnings: base.warnings } : {};
  if (critical) {
    const c = critical;
    if (swept.some((a) => a.path === c.path)) throw new UserInputError(`${c.path} is both swept and searched; drop one of them`);
    if (swept.length)
      throw new UserInputError(
        '--find-critical searches one field; it cannot be combined with swept --set axes',
        [],
        'give the other fields single values',
      );
    await checkValues(scenario, request.runtime, fixed, [{ path: c.path, values: [c.lo, c.hi] }]);
    const resolution = distinguishableStep(base, c.path, c.unit);
    return {
      scenario,
      runtime: request.runtime,
      fixed,
      axes: [],
      repeat: request.repeat,
      baseSeed,
      mode: { type: 'critical', ...c, ...(resolution ? { resolution } : {}) },
      ...warnings,
      ...criteria,
    };
  }
  if (!swept.length)
    throw new UserInputError(
      'nothing to sweep',
      [],
      'give --delay 10..300ms or --set path=VALUES with more than one value, or --find-critical',
    );
  await checkValues(scenario, request.runtime, fixed, [...swept, ...swept.flatMap((a) => a.zipped ?? [])]);
  const points = expandGrid(swept, request.repeat, baseSeed);
  const unit = swept.length === 1 ? swept[0].values[0]?.unit : undefined;
  const resolution = unit ? distinguishableStep(base, swept[0].path, unit) : undefined;
  return {
    scenario,
    runtime: request.runtime,
    fixed,
    axes: swept,
    repeat: request.repeat,
    baseSeed,
    mode: { type: 'grid', points, ...(resolution ? { resolution } : {}) },
    ...warnings,
    ...criteria,
  };
}

/** Sweeping a field the runtime ignores would run identical runs and report a flat answer. */
function refuseIgnoredAxes(paths: string[], runtime: Runtime): void {
  const problems = paths.flatMap((path) => {
    const why = whyIgnored(path, runtime);
    return why ? [`${path}: the ${runtime} runtime ignores it (${why}); every run would be the same`] : [];
  });
  if (problems.length)
    throw new UserInputError(
      'the sweep varies a field this runtime ignores',
      problems,
      `sweep it with --runtime ${runtime === 'docker' ? 'sim' : 'docker'}, or sweep another field`,
    );
}

/**
 * A density (or any traffic field) is a property of a `traffic:` block: on a scenario with listed
 * vehicles only, setting it would add a block without its road and fail on fields never named.
 */
function refuseTrafficFieldsWithoutTraffic(scenario: string, paths: string[], flagOf: (path: string) => string): void {
  const traffic = paths.filter((p) => p === 'traffic' || p.startsWith('traffic.'));
  if (!traffic.length || hasTrafficBlock(scenario)) return;
  throw new UserInputError(
    `${traffic.map(flagOf).join(', ')}: ${scenario} has no traffic: block, so it has no density to sweep`,
    [],
    'sweep a scenario with a traffic: block (scenarios/density-highway.yaml; docs/density-studies.md), or add one: traffic: { road: { length: 2km, lanes: 3 }, density: 120/km }',
  );
}

function hasTrafficBlock(scenario: string): boolean {
  try {
    const doc = parseYaml(readFileSync(scenario, 'utf8')) as unknown;
    return typeof doc === 'object' && doc !== null && 'traffic' in doc;
  } catch {
    return true; // unreadable or not YAML: loading the scenario says what is wrong with it
  }
}

function planCritical(c: NonNullable<SweepRequest['critical']>) {
  const path = fieldPath(c.path);
  if (!c.range.includes('..')) throw new UserInputError(`--range ${c.range}: write it as lo..hi, e.g. 10..500ms`);
  const range = parseSweepValues(c.range.split(':')[0]);
  if (!range.ok) throw new UserInputError(`--range: ${range.message}`);
  const lo = range.values[0];
  const hi = range.values.at(-1)!;
  if (lo.value === undefined || hi.value === undefined || !(hi.value > lo.value))
    throw new UserInputError(`--range ${c.range}: give two different numbers, the smaller first`);
  const tolerance = parseTolerance(c.tolerance, lo.unit);
  const coarse = c.coarse ?? DEFAULT_COARSE_SAMPLES;
  if (!Number.isInteger(coarse) || coarse < 2) throw new UserInputError(`--coarse ${coarse}: give a whole number of 2 or more`);
  return { path, lo, hi, tolerance, unit: lo.unit, coarse };
}

function parseTolerance(text: string, unit: string): number {
  const parsed = parseSweepValues(text);
  const t = parsed.ok && parsed.values.length === 1 ? parsed.values[0] : undefined;
  if (!t || t.value === undefined) throw new UserInputError(`--tolerance ${text}: give one number, e.g. 5ms`);
  const factor = t.unit ? unitFactor(t.unit, unit) : 1;
  if (factor === undefined)
    throw new UserInputError(
      `--tolerance ${text}: ${t.unit} does not convert to the range's unit${unit ? ` ${unit}` : ' (the range has none)'}`,
    );
  const value = t.value * factor;
  if (!(parseFloat(text) > 0)) throw new UserInputError(`--tolerance ${text}: must be greater than zero`);
  // Probed values are kept to 6 decimals of the unit, so a finer bracket cannot be reached.
  if (!(value >= 1e-6))
    throw new UserInputError(
      `--tolerance ${text}: finer than the 0.000001${unit} to which values are kept`,
      [],
      `give at least 0.000001${unit}`,
    );
  return value;
}

/** Every value of every axis, tried with the scenario's validation; all problems are reported together. */
async function checkValues(
  scenario: string,
  runtime: Runtime,
  fixed: string[],
  axes: readonly Pick<SweepAxis, 'path' | 'values'>[],
): Promise<void> {
  const problems: string[] = [];
  // One map decode for all the values: a sweep of a thousand points is checked in well under a second.
  const loadMap = cachingMapLoader();
  const inputs = cachingInputs();
  for (const axis of axes) {
    // the same problem for several values (a range without a unit: every one of them) is told once
    const byProblem = new Map<string, { values: string[]; detail: string }>();
    for (const v of axis.values as SweepValue[]) {
      try {
        await loadScenario(scenario, { overrides: [...fixed, `${axis.path}=${v.text}`], runtime, loadMap, inputs });
      } catch (err) {
        if (!(err instanceof UserInputError)) throw err;
        for (const detail of err.details) {
          const key = detail.replace(new RegExp(`(?<![\\w.])${v.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.])`, 'g'), '\0');
          const group = byProblem.get(key) ?? { values: [], detail };
          group.values.push(v.text);
          byProblem.set(key, group);
        }
      }
    }
    for (const { values, detail } of byProblem.values()) problems.push(`${axis.path}=${listValues(values)}: ${detail}`);
  }
  if (problems.length) throw new UserInputError('some swept values do not make a valid scenario', problems);
}

/** `10`, `10, 20`, or for many `10, 42.2, …, 300 (10 values)`. */
const listValues = (values: readonly string[]) =>
  values.length <= 3 ? values.join(', ') : `${values.slice(0, 2).join(', ')}, …, ${values.at(-1)} (${values.length} values)`;

/** Channel delays the runs can tell apart: a message is handed over at a control tick, so delays
 * within one tick of the fastest car's controller behave alike. Other fields: no known step. */
const TICK_QUANTISED = new Set(['network.delay']);

function distinguishableStep(scenario: ResolvedScenario, path: string, unit: string): number | undefined {
  if (!TICK_QUANTISED.has(path)) return undefined;
  const factor = unitFactor('s', unit);
  if (factor === undefined) return undefined;
  const tick = Math.min(
    ...scenario.vehicles.map((v) => stepsPerPeriod(v.controlRate, scenario.physics.timestep) * scenario.physics.timestep),
  );
  return +(tick * factor).toFixed(6);
}
