import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserInputError } from '../errors.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { readRunFile } from './read-run-file.js';
import { RUN_FILES } from './run-files.js';
import { defaultRunsDir } from './run-folder.js';
import type { RunSummary } from './summary.js';

const findRunsHint = () => `pass runs/<run-id> as printed by \`cavsim up\`; \`ls ${defaultRunsDir()}\` lists the run folders`;

/** Refuses a path that is not an existing folder, naming the path and how to find run folders. */
export function checkRunFolder(dir: string, what = 'run folder', hint = findRunsHint()): void {
  const code = statCode(dir);
  if (code === 'ENOENT' || code === 'ENOTDIR') throw new UserInputError(`${dir}: no such ${what}`, [], hint);
  if (code === 'file') throw new UserInputError(`${dir} is a file, not a ${what}`, [], hint);
  if (code !== 'folder') throw new UserInputError(`${dir}: cannot be read (${code})`, [], 'check the path and its permissions');
}

/** Fields every summary.json has, that readers of it use. */
const SUMMARY_FIELDS: [keyof RunSummary, 'string' | 'number' | 'boolean' | 'object' | 'array'][] = [
  ['run_id', 'string'],
  ['status', 'string'],
  ['sim_time_s', 'number'],
  ['wall_time_s', 'number'],
  ['collision', 'boolean'],
  ['v2v', 'object'],
  ['events', 'array'],
  ['collisions', 'array'],
];

/** A run folder's summary.json; a missing folder, a missing or damaged summary is a UserInputError naming the file. */
export function readRunSummary(dir: string): RunSummary {
  checkRunFolder(dir);
  const file = join(dir, RUN_FILES.summary);
  const value = readJsonFile(
    file,
    existsSync(join(dir, RUN_FILES.scenario))
      ? unfinishedRun(dir)
      : new UserInputError(`${dir} has no ${RUN_FILES.summary}: the run has not finished, or this is not a run folder`, [], findRunsHint()),
  );
  const summary = value as Partial<RunSummary> | null;
  const missing = SUMMARY_FIELDS.filter(([k, type]) => !hasType(summary?.[k], type)).map(([k]) => k);
  if (summary?.schema !== 'cavsim.summary/1' || missing.length) {
    throw new UserInputError(
      `${file} is not a cavsim run summary`,
      missing.length ? [`missing or wrong: ${missing.join(', ')}`] : [`schema: ${String(summary?.schema)}`],
      'run the scenario again to get a fresh one',
    );
  }
  return summary as RunSummary;
}

/** A run folder without a summary: its process was killed (or is still running); its CSVs hold what it measured. */
function unfinishedRun(dir: string): UserInputError {
  const until = lastTimeIn(join(dir, RUN_FILES.vehicles));
  return new UserInputError(
    `${dir} has no ${RUN_FILES.summary}: the run did not finish (its cavsim process was killed, or is still running)`,
    [`what it measured is kept in its CSVs${until === undefined ? '' : `: vehicles.csv up to t=${until} s`}`],
    `\`cavsim mcap ${dir}\` makes ${RUN_FILES.mcap} of them, \`cavsim view ${dir}\` replays them`,
  );
}

/** The time (first cell) of a CSV's last whole row, read from the file's end. */
function lastTimeIn(file: string): string | undefined {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const tail = Buffer.alloc(Math.min(size, 64 * 1024));
      readSync(fd, tail, 0, tail.length, size - tail.length);
      const lines = tail.toString('utf8').split('\n');
      const row = lines.slice(1, lines.at(-1) === '' ? -1 : lines.length - 1).at(-1);
      const t = row?.split(',')[0];
      return t !== undefined && t !== '' && Number.isFinite(Number(t)) ? t : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * A run folder's scenario.resolved.json, checked for the parts every reader of a run uses (the
 * vehicles with their params and controller, the network, the physics and the map file or road). Not a
 * full validation: cavsim wrote the file from a validated scenario; this catches a foreign one.
 */
export function readRunScenario(dir: string, whenMissing: UserInputError): ResolvedScenario {
  const file = join(dir, RUN_FILES.scenario);
  const s = readJsonFile(file, whenMissing) as Partial<ResolvedScenario> | null;
  const vehicles = Array.isArray(s?.vehicles) ? s.vehicles : undefined;
  const problems = [
    ...(hasType(s?.mapFile, 'string') || hasType(s?.traffic?.road, 'object') ? [] : ['mapFile (or the traffic road it generates)']),
    ...(hasType(s?.network, 'object') && hasType(s?.physics, 'object') ? [] : ['network or physics']),
    ...(vehicles?.every(
      (v) =>
        hasType(v?.name, 'string') &&
        hasType(v?.params, 'object') &&
        hasType(v?.controller?.type, 'string') &&
        (v.controller.type !== 'pure-pursuit' || Array.isArray(v.controller.waypoints)),
    )
      ? []
      : ['vehicles (each with name, params and controller)']),
  ];
  if (problems.length)
    throw new UserInputError(
      `${file} is not a resolved cavsim scenario`,
      [`missing or wrong: ${problems.join(', ')}`],
      'run the scenario again to get a fresh one',
    );
  return s as ResolvedScenario;
}

/** Parses a JSON file cavsim wrote; a missing, unreadable or damaged file is a UserInputError naming it. */
export function readJsonFile(file: string, whenMissing: UserInputError): unknown {
  const text = readRunFile(file);
  if (text === undefined) throw whenMissing;
  try {
    return JSON.parse(text);
  } catch (err) {
    // cavsim writes its JSON files whole (to a temporary name, then renamed): a broken one was edited or cut short outside cavsim.
    throw new UserInputError(
      `${file} is damaged: not valid JSON (${(err as Error).message})`,
      [],
      'restore it, or delete that folder and run again',
    );
  }
}

const hasType = (v: unknown, type: string) => (type === 'array' ? Array.isArray(v) : typeof v === type && v !== null);

function statCode(path: string): 'folder' | 'file' | string {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}
