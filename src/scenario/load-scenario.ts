import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { UserInputError } from '../errors.js';
import { scenarioSchema, type ScenarioParsed } from './schema.js';
import { YamlSource, type PathSegment } from './yaml-source.js';
import { normaliseScenario } from './normalise.js';
import { crossCheckScenario } from './cross-checks.js';
import type { ResolvedScenario } from './resolved.js';
import type { MapLoader } from '../map/map-loader.js';

export interface LoadScenarioOptions {
  /** `path=value` assignments applied before validation, as given to `--set`. */
  overrides?: readonly string[];
  /** How the map is read for the start-placement check (a sweep passes a caching one). */
  loadMap?: MapLoader;
}

/** A problem found in a scenario, located by field path and YAML line. */
export interface ScenarioProblem {
  path: PathSegment[];
  line?: number;
  message: string;
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
  const fail = (details: string[]) => new UserInputError(`${file} is not a valid scenario`, details, 'fix the fields listed and run `cavsim validate` again');
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch {
    throw new UserInputError(`scenario file ${file} cannot be read`, [`${file}: no such file (check the path)`]);
  }
  const { source, errors } = YamlSource.parse(absolute, text);
  if (!source) throw fail(errors);
  const overrideErrors = (options.overrides ?? []).flatMap((o) => source.set(o) ?? []);
  if (overrideErrors.length) throw fail(overrideErrors);

  const parsed = scenarioSchema.safeParse(source.toJS());
  const located = (p: ScenarioProblem) => formatProblem({ ...p, line: p.line ?? source.lineOf(p.path), fromSet: source.isOverridden(p.path) });
  if (!parsed.success) throw fail(parsed.error.issues.map((i) => located(toProblem(i, source))));

  const normalised = await normaliseScenario(parsed.data as ScenarioParsed, absolute);
  const problems = [...normalised.problems];
  if (normalised.scenario) problems.push(...(await crossCheckScenario(normalised.scenario, options.loadMap)));
  if (problems.length) throw fail(problems.map(located));
  return normalised.scenario!;
}

const KNOWN_CHOICES: Record<string, string> = {
  controller: 'pure-pursuit, open-loop, idle, gap-follow, wall-follow, rrt',
  apps: 'ttc-brake-sender, brake-receiver',
};

function toProblem(issue: z.core.$ZodIssue, source: YamlSource): ScenarioProblem {
  const path = issue.path.filter((p): p is PathSegment => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    return {
      path: [...path, key],
      line: source.lineOf(path, key),
      message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}; remove it or check the spelling`,
    };
  }
  if (issue.code === 'invalid_union' && path.at(-1) === 'type') {
    const owner = path.find((p) => typeof p === 'string' && p in KNOWN_CHOICES) as string | undefined;
    return { path, line: source.lineOf(path), message: `unknown type; use one of ${owner ? KNOWN_CHOICES[owner] : 'the documented types'}` };
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return { path, line: source.lineOf(path), message: `is required (${issue.message.replace(/^Invalid input: /, '')})` };
  }
  return { path, line: source.lineOf(path), message: issue.message.replace(/^Invalid input: /, '') };
}
