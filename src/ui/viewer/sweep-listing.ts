import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { RUN_FILES } from '../../run/run-files.js';
import { SweepFolder } from '../../sweep/sweep-folder.js';
import { axisColumn, columnPaths, summaryCsv } from '../../sweep/tables.js';
import { readCsvRecords } from '../../util/csv-records.js';

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

/**
 * The rows of summary.csv for every finished run of a sweep, with its swept columns (a grid's axes,
 * or the field a critical search probes) and answer.json's text. The rows come from results.jsonl,
 * not the file, so a sweep that is still running or was stopped lists the runs it has finished.
 */
export function readSweepListing(sweepDir: string): SweepListing {
  const folder = SweepFolder.open(sweepDir, sweepDir);
  const results = folder.readResults();
  const [header = [], ...rows] = readCsvRecords(summaryCsv(folder.spec, results)).map((r) => r.cells);
  const columns = header.filter((c) => !HIDDEN_COLUMNS.has(c));
  const axisColumns = columnPaths(folder.spec).map((path) => axisColumn(path, results));
  const runs = rows.map((cells): SweepRunRow => {
    const row = Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']));
    const run = row.run_dir ? basename(row.run_dir) : row.run;
    return { run, cells: row, openable: existsSync(join(folder.runsDir, run, RUN_FILES.scenario)) };
  });
  return {
    id: folder.id,
    scenario: basename(folder.spec.scenario),
    runtime: folder.spec.runtime,
    axisColumns,
    columns,
    runs,
    answer: readAnswer(folder.file('answer.json')),
  };
}

function readAnswer(path: string): string | null {
  try {
    const answer = JSON.parse(readFileSync(path, 'utf8')) as { text?: unknown };
    return typeof answer.text === 'string' ? answer.text : null;
  } catch {
    return null;
  }
}
