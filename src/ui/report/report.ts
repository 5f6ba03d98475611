import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { UserInputError } from '../../errors.js';
import { rebinned } from '../../measurement/binned-outcomes.js';
import { RUN_DISTANCE_BIN_M } from '../../measurement/distance-outcomes.js';
import { readDeliveryDistance } from '../../run/delivery-distance-file.js';
import { readJsonFile } from '../../run/read-run-folder.js';
import { RUN_FILES } from '../../run/run-files.js';
import type { CriticalSearchResult } from '../../sweep/critical.js';
import { pointDeliveries } from '../../sweep/delivery-distance-table.js';
import { isFinished, type SweepResult } from '../../sweep/result-row.js';
import { writeTables } from '../../sweep/run-sweep.js';
import { SweepFolder } from '../../sweep/sweep-folder.js';
import { columnPaths, sweptPaths } from '../../sweep/tables.js';
import { criticalMapFigure } from './critical-map-figure.js';
import { deliveryByPointFigure, deliveryDistanceFigure, deliveryOutcomesFigure } from './delivery-distance-figure.js';
import { kinematicsFigure, type LabelledRun } from './kinematics-figure.js';
import { pickKinematicsRuns } from './pick-runs.js';
import { isRunDir, type RunTraces, readRunTraces } from './read-run.js';
import { FIGURE_WIDTHS, type FigureSize, figurePaths, layOut, targetWidthPx, writeFigure } from './render.js';
import { sweepFigure } from './sweep-figure.js';
import { v2xFigure } from './v2x-figure.js';

export interface ReportOptions {
  /** Also draw every run's own kinematics figure (runs/<id>/plots/). */
  runPlots?: boolean;
  /** A paper's width and font size; unset: the critical map and V2X figures are laid out a column wide, the others at their own width. */
  size?: FigureSize;
  /** Called before each figure is drawn (a progress line: drawing takes seconds per figure). */
  onFigure?: (name: string, index: number, total: number) => void;
  /** Called for a figure left out, with why (e.g. nothing moved). */
  onSkip?: (name: string, why: string) => void;
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
  if (isRunDir(abs)) return writeRunReport(abs, opts.size);
  throw new UserInputError(`${dir} is neither a sweep nor a run folder`, [
    `${join(abs, 'grid.json')}: not found`,
    `${join(abs, RUN_FILES.summary)}: not found`,
  ]);
}

export async function writeRunReport(runDir: string, size: FigureSize = {}): Promise<ReportFiles> {
  const traces = readRunTraces(runDir);
  const network = traces.summary.parameters?.network;
  const label =
    network === undefined || !('delay' in network) || network.delay === undefined
      ? traces.summary.run_id
      : `delay ${+(network.delay * 1000).toFixed(3)} ms`;
  const fig = await writeFigure(
    join(runDir, 'plots'),
    'kinematics',
    kinematicsFigure([withVerdict(label, traces)], `${traces.summary.scenario}: speed, time to collision and gap`),
    size,
  );
  const figures = figurePaths(fig);
  const delivery = deliveryDistanceFigure(
    [{ label, rows: traces.deliveries }],
    `${traces.summary.scenario}: V2V delivery against distance`,
  );
  if (delivery) {
    const files = await writeFigure(join(runDir, 'plots'), 'delivery-distance', delivery, size);
    figures.push(...figurePaths(files));
  }
  const counted = readDeliveryDistance(join(runDir, RUN_FILES.deliveryDistance));
  const outcomes =
    counted && deliveryOutcomesFigure(rebinned(counted, RUN_DISTANCE_BIN_M), `${traces.summary.scenario}: V2V outcomes against distance`);
  if (outcomes) figures.push(...figurePaths(await writeFigure(join(runDir, 'plots'), 'delivery-outcomes', outcomes, size)));
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
  const size = opts.size ?? {};
  const laidOut = { ...size, widthIn: size.widthIn ?? FIGURE_WIDTHS.column };
  const firstRun = readRunTraces(join(folder.dir, done[0].runDir)).summary;
  const { picked, leftOut } = pickKinematicsRuns(folder.spec, done, critical);
  const pickedTraces = picked.map((r) => readRunTraces(join(folder.dir, r.runDir)));
  const moved = pickedTraces.some(anythingMoved);
  if (!moved) opts.onSkip?.('kinematics', 'no car changed speed and none collided in the runs it would show');
  const points = pointDeliveries(folder.spec, folder.dir, done);
  // a curve needs two distances: a platoon's frames all travel less than one 50 m bin
  const spread = points.some((p) => Object.values(p.binned.counts).some((c) => c.filter((n) => n > 0).length > 1));
  if (points.length && !spread)
    opts.onSkip?.('delivery-by-point', `every frame was sent within one ${RUN_DISTANCE_BIN_M} m bin; delivery-distance.csv has its counts`);
  // Each figure is built only when its turn comes; the list is known first, for the progress line.
  const planned: { name: string; build: (widthPx?: number) => TopLevelSpec | undefined; size: FigureSize; fit?: boolean }[] = [
    ...(folder.spec.mode.type === 'grid' && sweptPaths(folder.spec).length > 1
      ? [
          {
            name: 'critical-map',
            build: (w?: number) => criticalMapFigure(folder.spec, done, w, targetWidthPx(laidOut)),
            size: laidOut,
            fit: true,
          },
        ]
      : []),
    { name: 'closest-approach', build: () => sweepFigure(folder.spec, done, critical, firstRun.scenario), size },
    {
      name: 'v2x',
      build: (w) => v2xFigure(folder.spec, done, firstRun.parameters?.vehicles?.[0]?.params?.length ?? 0.58, w, targetWidthPx(laidOut)),
      size: laidOut,
      fit: true,
    },
    {
      name: 'delivery-distance',
      build: () =>
        deliveryDistanceFigure(
          picked.map((r, i) => ({ label: runLabel(r), rows: pickedTraces[i].deliveries })),
          `${firstRun.scenario}: V2V delivery against distance`,
        ),
      size,
    },
    ...(spread
      ? [
          {
            name: 'delivery-by-point',
            build: () => {
              const shown =
                points.length <= MAX_DELIVERY_SERIES
                  ? points
                  : points.filter((p) => picked.some((r) => samePoint(folder.spec, r.values, p.values)));
              return deliveryByPointFigure(
                shown.map((p) => ({ label: runLabel({ values: p.values, seed: 0, repeat: 0 }), binned: p.binned })),
                `${firstRun.scenario}: V2V delivery against distance per point`,
                shown.length < points.length ? `${shown.length} of ${points.length} points (those of the kinematics figure)` : undefined,
              );
            },
            size,
          },
        ]
      : []),
  ];
  if (moved) {
    const xName = sweptPaths(folder.spec)[0].split('.').pop();
    const notes = leftOut.length
      ? [
          `rows: ${picked.length} of ${picked.length + leftOut.length} values (the ends and either side of each change of outcome); not drawn: ${xName} ${leftOut.length > 8 ? `${leftOut.slice(0, 8).join(', ')} and ${leftOut.length - 8} more` : leftOut.join(', ')}`,
        ]
      : [];
    planned.push({
      name: 'kinematics',
      build: () =>
        kinematicsFigure(
          picked.map((r, i) => withVerdict(runLabel(r), pickedTraces[i])),
          `${firstRun.scenario}: speed, time to collision and gap of selected runs`,
          notes,
        ),
      size,
    });
  }
  for (const [i, f] of planned.entries()) {
    opts.onFigure?.(f.name, i + 1, planned.length);
    const spec = f.fit ? await layOut(f.build, f.size) : f.build();
    if (spec) figures.push(...figurePaths(await writeFigure(plots, f.name, spec, f.size)));
  }
  if (opts.runPlots) {
    for (const r of done) {
      const files = await writeRunReport(join(folder.dir, r.runDir));
      figures.push(...files.figures);
    }
  }
  return { figures, tables };
}

/** A kinematics figure of flat lines shows nothing: some car changed speed by 0.1 m/s or more, or cars collided. */
export function anythingMoved(traces: Pick<RunTraces, 'vehicles' | 'summary'>): boolean {
  if (traces.summary.collision) return true;
  const range = new Map<string, [number, number]>();
  for (const s of traces.vehicles) {
    const [lo, hi] = range.get(s.vehicle) ?? [Infinity, -Infinity];
    range.set(s.vehicle, [Math.min(lo, s.speed), Math.max(hi, s.speed)]);
  }
  return [...range.values()].some(([lo, hi]) => hi - lo >= 0.1);
}

function withVerdict(label: string, traces: RunTraces): LabelledRun {
  return { label: traces.summary.collision ? `${label} (collision)` : label, traces };
}

function readCritical(folder: SweepFolder): CriticalSearchResult | undefined {
  const path = folder.file('critical.json');
  return existsSync(path) ? (readJsonFile(path, new UserInputError(`${path}: not found`)) as CriticalSearchResult) : undefined;
}

/** `delay = 100ms`: the last part of each swept path and its value. */
/** More points than this get one line each for the kinematics figure's points only. */
const MAX_DELIVERY_SERIES = 8;

const samePoint = (spec: SweepFolder['spec'], a: SweepResult['values'], b: SweepResult['values']) =>
  columnPaths(spec).every((p) => a[p]?.text === b[p]?.text);

export function runLabel(r: Pick<SweepResult, 'values' | 'seed' | 'repeat'>): string {
  const parts = Object.entries(r.values).map(
    ([path, v]) => `${path.split('.').pop()} ${v.value === undefined ? v.text : `${+v.value.toPrecision(3)} ${v.unit}`.trim()}`,
  );
  return parts.join(', ') + (r.repeat > 0 ? ` (seed ${r.seed})` : '');
}
