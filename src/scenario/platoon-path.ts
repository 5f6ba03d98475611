import { resolve } from 'node:path';
import { parseNumericCsv } from '../core/control/waypoints.js';
import { readInputFile } from '../util/read-input-file.js';

export interface PathPoint {
  x: number;
  y: number;
}

/** The path a platoon's leader drives: its controller's waypoints, and whether they loop. */
export interface LeaderPath {
  points: PathPoint[];
  loop: boolean;
}

const MAX_PATH_BYTES = 64 * 1024 * 1024;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The leader's waypoints (a CSV beside the scenario, or an inline list), when its controller has
 * any. A file that cannot be read gives none: normalisation reports it, with the line.
 */
export async function readLeaderPath(data: Record<string, unknown>, scenarioFile: string): Promise<LeaderPath | undefined> {
  const controller = isObject(data.platoon) && isObject(data.platoon.leader) ? data.platoon.leader.controller : undefined;
  if (!isObject(controller)) return undefined;
  const loop = controller.loop === true;
  const { waypoints } = controller;
  if (Array.isArray(waypoints)) {
    const points = waypoints.filter(isObject).map((w) => ({ x: w.x, y: w.y }));
    return points.every((p): p is PathPoint => Number.isFinite(p.x) && Number.isFinite(p.y)) ? { points, loop } : undefined;
  }
  if (typeof waypoints !== 'string') return undefined;
  const read = await readInputFile(resolve(scenarioFile, '..', waypoints), MAX_PATH_BYTES);
  if (!read.ok) return undefined;
  const { rows, errors } = parseNumericCsv(read.text, ['x', 'y']);
  return errors.length ? undefined : { points: rows, loop };
}

/**
 * The pose `back` metres behind `start` along the path, heading along it: from the point of the
 * path nearest to `start`, backwards segment by segment (round a loop; past the first point of
 * an open path, straight on along its first segment).
 */
export function poseBehindOnPath(path: LeaderPath, start: PathPoint, back: number): { x: number; y: number; yaw: number } | undefined {
  const pts = path.points;
  const n = pts.length;
  const segments = path.loop ? n : n - 1;
  if (segments < 1) return undefined;
  const end = (k: number) => pts[(k + 1) % n];
  let best = { k: 0, s: 0, d2: Infinity };
  for (let k = 0; k < segments; k++) {
    const a = pts[k];
    const b = end(k);
    const lx = b.x - a.x;
    const ly = b.y - a.y;
    const len2 = lx * lx + ly * ly;
    const s = len2 > 0 ? Math.min(1, Math.max(0, ((start.x - a.x) * lx + (start.y - a.y) * ly) / len2)) : 0;
    const d2 = (a.x + s * lx - start.x) ** 2 + (a.y + s * ly - start.y) ** 2;
    if (d2 < best.d2) best = { k, s, d2 };
  }
  let k = best.k;
  let remaining = back;
  let along = best.s; // fraction of segment k still behind the current point
  for (let guard = 0; guard < segments * Math.ceil(1 + back) + segments; guard++) {
    const a = pts[k];
    const b = end(k);
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const yaw = Math.atan2(b.y - a.y, b.x - a.x);
    const available = along * len;
    if (len > 0 && (remaining <= available || (!path.loop && k === 0))) {
      const at = along * len - remaining; // may be negative: straight on past an open path's start
      return { x: a.x + (at / len) * (b.x - a.x), y: a.y + (at / len) * (b.y - a.y), yaw };
    }
    remaining -= available;
    if (!path.loop && k === 0) return undefined; // an open path of zero-length segments only
    k = (k - 1 + segments) % segments;
    along = 1;
  }
  return undefined;
}
