import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SweepFolder } from '../sweep/sweep-folder.js';
import { readCsvRecords } from '../util/csv-records.js';

/** One run of a sweep, as its row of summary.csv has it. */
export interface SweepRunRow {
  /** The run folder's name under runs/, and the page's path to it. */
  run: string;
  cells: Record<string, string>;
  /** Whether its run folder is there to open. */
  openable: boolean;
}

/** What the sweep page lists: every run with its swept values and outcome. */
export interface SweepListing {
  id: string;
  scenario: string;
  runtime: string;
  /** Columns that hold the swept values, in the sweep's axis order. */
  axisColumns: string[];
  columns: string[];
  runs: SweepRunRow[];
  answer: string | null;
}

const HIDDEN_COLUMNS = new Set(['run_dir']);

/** Reads a sweep folder's grid.json, summary.csv (one row per run) and answer.json. */
export function readSweepListing(sweepDir: string): SweepListing {
  const folder = SweepFolder.open(sweepDir, sweepDir);
  const summary = folder.file('summary.csv');
  const [header = [], ...rows] = existsSync(summary) ? readCsvRecords(readFileSync(summary, 'utf8')).map((r) => r.cells) : [];
  const columns = header.filter((c) => !HIDDEN_COLUMNS.has(c));
  const axisColumns = folder.spec.axes.flatMap((axis) => header.filter((c) => c === axis.path || c.startsWith(`${axis.path}_`)));
  const runColumn = header.indexOf('run');
  const dirColumn = header.indexOf('run_dir');
  const runs = rows.map((cells): SweepRunRow => {
    const run = dirColumn >= 0 && cells[dirColumn] ? basename(cells[dirColumn]) : cells[runColumn];
    return { run, cells: Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])), openable: existsSync(join(folder.runsDir, run, 'scenario.resolved.json')) };
  });
  return { id: folder.id, scenario: basename(folder.spec.scenario), runtime: folder.spec.runtime, axisColumns, columns, runs, answer: readAnswer(folder.file('answer.json')) };
}

function readAnswer(path: string): string | null {
  try {
    const answer = JSON.parse(readFileSync(path, 'utf8')) as { text?: unknown };
    return typeof answer.text === 'string' ? answer.text : null;
  } catch {
    return null;
  }
}
