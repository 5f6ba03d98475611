import { CsvHeader } from '../../util/csv-lines.js';
import { csvCells } from '../../util/csv-records.js';

/**
 * What the page draws, in columns: one array per quantity, so a 60 s run of 10 cars is a few MB of
 * JSON rather than a list of objects. The same shape carries a full snapshot and an appended delta.
 */
export interface RunData {
  vehicles: Record<string, VehicleSeries>;
  /** Keyed `${a}|${b}`, in the order pairs.csv names them. */
  pairs: Record<string, PairSeries>;
  collisions: CollisionRow[];
  v2v: V2VRow[];
  events: EventRow[];
}

export interface VehicleSeries {
  t: number[];
  x: number[];
  y: number[];
  yaw: number[];
  v: number[];
  braking: number[]; // 0 | 1
  collided: number[]; // 0 | 1
  /** Index of the pure-pursuit goal waypoint at this pose, -1 when there is none. */
  goal: number[];
}

export interface PairSeries {
  a: string;
  b: string;
  t: number[];
  d: number[];
  /** null while the pair is not closing (the CSV cell is empty). */
  ttc: (number | null)[];
}

export interface CollisionRow {
  t: number;
  a: string;
  b: string;
}

export interface V2VRow {
  id: string;
  from: string;
  to: string;
  type: string;
  sent: number;
  received: number;
  size: number;
}

export interface EventRow {
  t: number;
  vehicle: string;
  event: string;
  detail: string;
}

export type RunFileKind = 'vehicles' | 'pairs' | 'collisions' | 'v2v' | 'events';
export const RUN_FILE_KINDS: readonly RunFileKind[] = ['vehicles', 'pairs', 'collisions', 'v2v', 'events'];

/** Index of the goal waypoint a car would choose at a pose (-1 for none or no pure pursuit). */
export type GoalFinder = (vehicle: string, pose: { x: number; y: number; yaw: number }) => number;

export const emptyRunData = (): RunData => ({ vehicles: {}, pairs: {}, collisions: [], v2v: [], events: [] });

export function isEmptyRunData(d: RunData): boolean {
  return !Object.keys(d.vehicles).length && !Object.keys(d.pairs).length && !d.collisions.length && !d.v2v.length && !d.events.length;
}

// Millimetres and milliseconds are far below what a screen shows and keep the JSON short.
const round3 = (v: number) => Math.round(v * 1000) / 1000;
const round4 = (v: number) => Math.round(v * 10000) / 10000;

function appendAll<T>(target: T[], source: readonly T[]): void {
  for (let i = 0; i < source.length; i++) target.push(source[i]);
}

/** Appends a delta to a snapshot in place (the page does the same with what the server pushes). */
export function mergeRunData(target: RunData, delta: RunData): void {
  for (const [name, s] of Object.entries(delta.vehicles)) {
    const t = target.vehicles[name];
    // A series the target lacks is copied whole: much faster than pushing row by row.
    if (!t)
      target.vehicles[name] = {
        t: s.t.slice(),
        x: s.x.slice(),
        y: s.y.slice(),
        yaw: s.yaw.slice(),
        v: s.v.slice(),
        braking: s.braking.slice(),
        collided: s.collided.slice(),
        goal: s.goal.slice(),
      };
    else for (const key of VEHICLE_COLUMNS) appendAll(t[key], s[key]);
  }
  for (const [key, s] of Object.entries(delta.pairs)) {
    const t = target.pairs[key];
    if (!t) {
      target.pairs[key] = { a: s.a, b: s.b, t: s.t.slice(), d: s.d.slice(), ttc: s.ttc.slice() };
      continue;
    }
    appendAll(t.t, s.t);
    appendAll(t.d, s.d);
    appendAll(t.ttc, s.ttc);
  }
  appendAll(target.collisions, delta.collisions);
  appendAll(target.v2v, delta.v2v);
  appendAll(target.events, delta.events);
}

const VEHICLE_COLUMNS = ['t', 'x', 'y', 'yaw', 'v', 'braking', 'collided', 'goal'] as const;
export const emptyVehicleSeries = (): VehicleSeries => ({ t: [], x: [], y: [], yaw: [], v: [], braking: [], collided: [], goal: [] });

/**
 * Reads the lines of a run's CSVs as they arrive (the first line of each file is its header) into
 * a growing snapshot, and returns each batch as a delta to push to live pages.
 */
export class RunDataStore {
  readonly data: RunData = emptyRunData();
  private readonly headers = new Map<RunFileKind, CsvHeader>();
  /** Where the latest sample is, for the slider's end in live mode. */
  lastTime = 0;

  constructor(private readonly findGoal: GoalFinder = () => -1) {}

  ingest(kind: RunFileKind, lines: readonly string[]): RunData {
    const delta = emptyRunData();
    let start = 0;
    let header = this.headers.get(kind);
    if (!header && lines.length) {
      header = new CsvHeader(lines[0]);
      this.headers.set(kind, header);
      start = 1;
    }
    if (!header) return delta;
    const rows = lines.slice(start);
    if (kind === 'vehicles') this.readVehicles(header, rows, delta);
    else if (kind === 'pairs') this.readPairs(header, rows, delta);
    else if (kind === 'collisions') this.readCollisions(header, rows, delta);
    else if (kind === 'v2v') this.readV2V(header, rows, delta);
    else this.readEvents(header, rows, delta);
    mergeRunData(this.data, delta);
    return delta;
  }

  private readVehicles(h: CsvHeader, rows: readonly string[], delta: RunData): void {
    const [ti, ni, xi, yi, yawi, vi, bi, ci] = ['t_s', 'vehicle', 'x_m', 'y_m', 'yaw_rad', 'speed_mps', 'braking', 'collided'].map((c) =>
      h.index(c),
    );
    for (const cells of csvCells(rows)) {
      const name = cells[ni];
      const t = Number(cells[ti]);
      const x = Number(cells[xi]);
      const y = Number(cells[yi]);
      const yaw = Number(cells[yawi]);
      if (!name || !Number.isFinite(t) || !Number.isFinite(x) || !Number.isFinite(y)) continue;
      const s = (delta.vehicles[name] ??= emptyVehicleSeries());
      s.t.push(round3(t));
      s.x.push(round3(x));
      s.y.push(round3(y));
      s.yaw.push(round4(yaw));
      s.v.push(round3(Number(cells[vi])));
      s.braking.push(cells[bi] === '1' ? 1 : 0);
      s.collided.push(cells[ci] === '1' ? 1 : 0);
      s.goal.push(this.findGoal(name, { x, y, yaw }));
      if (t > this.lastTime) this.lastTime = t;
    }
  }

  private readPairs(h: CsvHeader, rows: readonly string[], delta: RunData): void {
    const [ti, ai, bi, di, ttci] = ['t_s', 'a', 'b', 'distance_m', 'ttc_s'].map((c) => h.index(c));
    for (const cells of csvCells(rows)) {
      const t = Number(cells[ti]);
      if (!Number.isFinite(t)) continue;
      const key = `${cells[ai]}|${cells[bi]}`;
      const s = (delta.pairs[key] ??= { a: cells[ai], b: cells[bi], t: [], d: [], ttc: [] });
      s.t.push(round3(t));
      s.d.push(round3(Number(cells[di])));
      const ttc = cells[ttci];
      s.ttc.push(ttc === undefined || ttc === '' ? null : round3(Number(ttc)));
    }
  }

  private readCollisions(h: CsvHeader, rows: readonly string[], delta: RunData): void {
    const [ti, ai, bi] = ['t_s', 'a', 'b'].map((c) => h.index(c));
    for (const cells of csvCells(rows)) {
      delta.collisions.push({ t: Number(cells[ti]), a: cells[ai], b: cells[bi] });
    }
  }

  private readV2V(h: CsvHeader, rows: readonly string[], delta: RunData): void {
    const [idi, fi, toi, typei, si, ri, sizei] = ['id', 'from', 'to', 'type', 'sent_s', 'received_s', 'size_bytes'].map((c) => h.index(c));
    for (const cells of csvCells(rows)) {
      if (cells[ri] === '') continue; // a frame that was lost: not drawn
      delta.v2v.push({
        id: cells[idi],
        from: cells[fi],
        to: cells[toi],
        type: cells[typei],
        sent: Number(cells[si]),
        received: Number(cells[ri]),
        size: Number(cells[sizei]),
      });
    }
  }

  private readEvents(h: CsvHeader, rows: readonly string[], delta: RunData): void {
    const [ti, vi, ei, di] = ['t_s', 'vehicle', 'event', 'detail'].map((c) => h.index(c));
    for (const cells of csvCells(rows)) {
      delta.events.push({ t: Number(cells[ti]), vehicle: cells[vi], event: cells[ei], detail: cells[di] ?? '' });
    }
  }
}
