import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserInputError } from '../../errors.js';
import { readJsonFile } from '../../run/read-run-folder.js';
import { RUN_FILES } from '../../run/run-files.js';
import type { CriticalSearchResult } from '../../sweep/critical.js';
import { isFinished, type SweepResult } from '../../sweep/result-row.js';
import { writeTables } from '../../sweep/run-sweep.js';
import { SweepFolder } from '../../sweep/sweep-folder.js';
import { sweptPaths } from '../../sweep/tables.js';
import { deliveryDistanceFigure } from './delivery-distance-figure.js';
import { kinematicsFigure, type LabelledRun } from './kinematics-figure.js';
import { pickKinematicsRuns } from './pick-runs.js';
import { isRunDir, type RunTraces, readRunTraces } from './read-run.js';
import { figurePaths, writeFigure } from './render.js';
import { sweepFigure } from './sweep-figure.js';
import { v2xFigure } from './v2x-figure.js';

export interface ReportOptions {
  /** Also draw every run's own kinematics figure (runs/<id>/plots/). */
  runPlots?: boolean;
}

/** Paths of the files written. */
export interface ReportFiles {
  figures: string[];
  tables: string[];
}

/** `cavsim report <dir>`: a sweep folder (grid.json) or a run folder (summary.json). */
export async function writeReport(dir: string, opts: ReportOptions = {}): Promise<ReportFiles> {
  const abs = resolve(dir);
  if (SweepFolder.isSweepDir(abs)) return writeSweepReport(SweepFolder.open(abs, abs), opts);
  if (isRunDir(abs)) return writeRunReport(abs);
  throw new UserInputError(`${dir} is neither a sweep nor a run folder`, [
    `${join(abs, 'grid.json')}: not found`,
    `${join(abs, RUN_FILES.summary)}: not found`,
  ]);
}

export async function writeRunReport(runDir: string): Promise<ReportFiles> {
  const traces = readRunTraces(runDir);
  const network = traces.summary.parameters?.network;
  const label = network === undefined || !('delay' in network) ? traces.summary.run_id : `delay ${+(network.delay * 1000).toFixed(3)} ms`;
  const fig = await writeFigure(
    join(runDir, 'plots'),
    'kinematics',
    kinematicsFigure([withVerdict(label, traces)], `${traces.summary.scenario}: speed, time to collision and gap`),
  );
  const figures = figurePaths(fig);
  const delivery = deliveryDistanceFigure(
    [{ label, rows: traces.deliveries }],
    `${traces.summary.scenario}: V2V delivery against distance`,
  );
  if (delivery) {
    const files = await writeFigure(join(runDir, 'plots'), 'delivery-distance', delivery);
    figures.push(...figurePaths(files));
  }
  return { figures, tables: [] };
}

export async function writeSweepReport(folder: SweepFolder, opts: ReportOptions = {}): Promise<ReportFiles> {
  const results = writeTables(folder);
  const tables = [folder.file('summary.csv'), folder.file('points.csv')];
  const done = results.filter((r) => isFinished(r) && existsSync(join(folder.dir, r.runDir, RUN_FILES.summary)));
  if (!done.length) return { figures: [], tables };
  const critical = readCritical(folder);
  const plots = join(folder.dir, 'plots');
  const figures: string[] = [];
  const firstRun = readRunTraces(join(folder.dir, done[0].runDir)).summary;
  const closest = await writeFigure(plots, 'closest-approach', sweepFigure(folder.spec, done, critical, firstRun.scenario));
  figures.push(...figurePaths(closest));
  const v2x = v2xFigure(folder.spec, done, firstRun.parameters?.vehicles?.[0]?.params?.length ?? 0.58);
  if (v2x) {
    const files = await writeFigure(plots, 'v2x', v2x);
    figures.push(...figurePaths(files));
  }
  const { picked, leftOut } = pickKinematicsRuns(folder.spec, done, critical);
  const delivery = deliveryDistanceFigure(
    picked.map((r) => ({ label: runLabel(r), rows: readRunTraces(join(folder.dir, r.runDir)).deliveries })),
    `${firstRun.scenario}: V2V delivery against distance`,
  );
  if (delivery) {
    const files = await writeFigure(plots, 'delivery-distance', delivery);
    figures.push(...figurePaths(files));
  }
  const rows = picked.map((r) => withVerdict(runLabel(r), readRunTraces(join(folder.dir, r.runDir))));
  const xName = sweptPaths(folder.spec)[0].split('.').pop();
  const notes = leftOut.length
    ? [
        `rows: ${picked.length} of ${picked.length + leftOut.length} values (the ends and either side of each change of outcome); not drawn: ${xName} ${leftOut.length > 8 ? `${leftOut.slice(0, 8).join(', ')} and ${leftOut.length - 8} more` : leftOut.join(', ')}`,
      ]
    : [];
  const kin = await writeFigure(
    plots,
    'kinematics',
    kinematicsFigure(rows, `${firstRun.scenario}: speed, time to collision and gap of selected runs`, notes),
  );
  figures.push(...figurePaths(kin));
  if (opts.runPlots) {
    for (const r of done) {
      const files = await writeRunReport(join(folder.dir, r.runDir));
      figures.push(...files.figures);
    }
  }
  return { figures, tables };
}

function withVerdict(label: string, traces: RunTraces): LabelledRun {
  return { label: traces.summary.collision ? `${label} (collision)` : label, traces };
}

function readCritical(folder: SweepFolder): CriticalSearchResult | undefined {
  const path = folder.file('critical.json');
  return existsSync(path) ? (readJsonFile(path, new UserInputError(`${path}: not found`)) as CriticalSearchResult) : undefined;
}

/** `delay = 100ms`: the last part of each swept path and its value. */
export function runLabel(r: Pick<SweepResult, 'values' | 'seed' | 'repeat'>): string {
  const parts = Object.entries(r.values).map(
    ([path, v]) => `${path.split('.').pop()} ${v.value === undefined ? v.text : `${+v.value.toPrecision(3)} ${v.unit}`.trim()}`,
  );
  return parts.join(', ') + (r.repeat > 0 ? ` (seed ${r.seed})` : '');
}
