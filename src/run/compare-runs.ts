import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readRunFile } from './read-run-file.js';
import { RUN_FILES } from './run-files.js';

/** The measurements a run of the same scenario and seed must reproduce. compute.csv is host timing. */
export const MEASUREMENT_FILES = [RUN_FILES.vehicles, RUN_FILES.pairs, RUN_FILES.collisions, RUN_FILES.v2v, RUN_FILES.events] as const;

/** summary.json keys that describe the run, not what it measured. */
const NOT_MEASURED = new Set(['run_id', 'wall_time_s', 'timing', 'warnings', 'hint']);

export interface FileComparison {
  file: string;
  identical: boolean;
  /** 1-based line of the first difference, with both lines ('' where a file ended). */
  firstDifference?: { line: number; original: string; replay: string };
}

export interface RunComparison {
  identical: boolean;
  files: FileComparison[];
  /** summary.json keys whose values differ. */
  summary: { key: string; original: unknown; replay: unknown }[];
}

export function compareRunFolders(originalDir: string, replayDir: string): RunComparison {
  const files = MEASUREMENT_FILES.filter((f) => existsSync(join(originalDir, f)) || existsSync(join(replayDir, f))).map((f) =>
    compareFile(f, read(originalDir, f), read(replayDir, f)),
  );
  const summary = compareSummaries(readJson(originalDir), readJson(replayDir));
  return { identical: files.every((f) => f.identical) && summary.length === 0, files, summary };
}

export function compareFile(file: string, original: string, replay: string): FileComparison {
  if (original === replay) return { file, identical: true };
  const a = original.split('\n');
  const b = replay.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return { file, identical: false, firstDifference: { line: i + 1, original: a[i] ?? '', replay: b[i] ?? '' } };
}

export function compareSummaries(original: Record<string, unknown>, replay: Record<string, unknown>): RunComparison['summary'] {
  const keys = [...new Set([...Object.keys(original), ...Object.keys(replay)])].filter((k) => !NOT_MEASURED.has(k));
  return keys
    .filter((k) => JSON.stringify(original[k]) !== JSON.stringify(replay[k]))
    .map((key) => ({ key, original: original[key], replay: replay[key] }));
}

const read = (dir: string, file: string) => readRunFile(join(dir, file)) ?? '';

/** A summary that is not a JSON object compares as that fact, so the runs differ and say why. */
function readJson(dir: string): Record<string, unknown> {
  const text = readRunFile(join(dir, RUN_FILES.summary));
  if (text === undefined) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // falls through to the damaged marker
  }
  return { [RUN_FILES.summary]: 'damaged: not a JSON object' };
}
