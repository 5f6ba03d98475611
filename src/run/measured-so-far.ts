import { join } from 'node:path';
import { type PairFigures, type Recorder, unmeasuredPair, type V2VLoss, type V2VRecord } from '../measurement/recorder.js';
import { requireCjs } from '../util/require-cjs.js';
import type { CollisionEvent } from '../world/world.js';
import { readRunFile } from './read-run-file.js';
import { RUN_FILES } from './run-files.js';

// The CommonJS build, which csv-records.ts loads too: one csv-parse, not two (util/require-cjs.ts).
const { parse } = requireCjs('csv-parse/sync') as typeof import('csv-parse/sync');

/** What `buildSummary` reads from a recorder. */
/** `pairs`: the pairs summary.json lists; `allPairs` (when known): every pair, for the run-wide minima. */
export type MeasuredFigures = Pick<Recorder, 'pairs' | 'collisions' | 'v2v' | 'v2vLost' | 'v2vSent' | 'events'> &
  Partial<Pick<Recorder, 'platoon' | 'allPairs' | 'v2vFrames' | 'cbrSamples'>>;

export interface MeasuredSoFar extends MeasuredFigures {
  /** Time of the last recorded step [s], 0 when none was recorded. */
  simTime: number;
}

const rowsOf = (path: string): Record<string, string>[] => {
  const text = readRunFile(path);
  return text === undefined
    ? []
    : (parse(text, { columns: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[]);
};

/**
 * The figures of a run rebuilt from the CSVs it flushed as it went: what a run whose recorder died
 * with it (a killed simulator container) still measured. The last, possibly torn, row is skipped.
 */
export function readMeasuredSoFar(dir: string, carNames: readonly string[]): MeasuredSoFar {
  const complete = (rows: Record<string, string>[], key: string) =>
    rows.filter((r) => r[key] !== undefined && r[key] !== '' && Number.isFinite(Number(r[key])));
  const vehicles = complete(rowsOf(join(dir, RUN_FILES.vehicles)), 'collided');
  const pairRows = complete(rowsOf(join(dir, RUN_FILES.pairs)), 'closing_speed_mps');
  const collisionRows = complete(rowsOf(join(dir, RUN_FILES.collisions)), 'speed_b_mps');
  const v2vRows = complete(rowsOf(join(dir, RUN_FILES.v2v)), 'size_bytes');
  const eventRows = rowsOf(join(dir, RUN_FILES.events)).filter((r) => r.event);

  const pairs: PairFigures[] = [];
  const byKey = new Map<string, PairFigures>();
  for (let i = 0; i < carNames.length; i++) {
    for (let j = i + 1; j < carNames.length; j++) {
      const p = unmeasuredPair(carNames[i], carNames[j]);
      pairs.push(p);
      byKey.set(`${p.a}\0${p.b}`, p);
    }
  }
  for (const r of pairRows) {
    const p = byKey.get(`${r.a}\0${r.b}`);
    if (!p) continue;
    const t = Number(r.t_s);
    const d = Number(r.distance_m);
    if (d < p.min_distance_m) [p.min_distance_m, p.min_distance_t_s] = [d, t];
    if (r.gap_m !== '' && r.gap_m !== undefined) {
      const gap = Number(r.gap_m);
      if (p.min_gap_m === null || gap < p.min_gap_m) p.min_gap_m = gap;
    }
    if (r.ttc_s !== '' && r.ttc_s !== undefined) {
      const ttc = Number(r.ttc_s);
      if (p.min_ttc_s === null || ttc < p.min_ttc_s) [p.min_ttc_s, p.min_ttc_t_s] = [ttc, t];
    }
  }
  const collisions: CollisionEvent[] = collisionRows.map(
    (r) => ({ t: Number(r.t_s), a: r.a, b: r.b, speedA: Number(r.speed_a_mps), speedB: Number(r.speed_b_mps) }) as CollisionEvent,
  );
  for (const c of collisions) {
    const p = byKey.get(`${c.a}\0${c.b}`) ?? byKey.get(`${c.b}\0${c.a}`);
    if (p && !p.collision) [p.collision, p.first_collision_t_s] = [true, c.t];
  }
  // Rows of runs before per-receiver outcomes have no outcome column: each one is a delivery.
  const delivered = (r: Record<string, string>) => !r.outcome || r.outcome === 'delivered';
  const frame = (r: Record<string, string>) => ({
    id: r.id,
    from: r.from,
    to: r.to,
    type: r.type,
    sentAt: Number(r.sent_s),
    sizeBytes: Number(r.size_bytes),
  });
  const v2v: V2VRecord[] = v2vRows.filter(delivered).map((r) => ({ ...frame(r), receivedAt: Number(r.received_s) }));
  const v2vLost: V2VLoss[] = v2vRows.filter((r) => !delivered(r)).map((r) => ({ ...frame(r), reason: r.outcome as V2VLoss['reason'] }));
  return {
    simTime: vehicles.reduce((m, r) => Math.max(m, Number(r.t_s)), 0),
    // As a finished run's summary: the pairs with rows in pairs.csv (pair-rows.ts) or a collision.
    pairs: pairs.filter((p) => Number.isFinite(p.min_distance_m) || p.collision),
    collisions,
    v2v,
    v2vLost,
    // Sends are not logged to CSV of their own: a message is known to have been sent by its rows.
    v2vSent: new Set([...v2v, ...v2vLost].map((r) => r.id)),
    events: eventRows.map((r) => ({
      t: Number(r.t_s),
      vehicle: r.vehicle,
      event: r.event,
      ...(r.detail ? { detail: parseDetail(r.detail) } : {}),
    })),
  };
}

function parseDetail(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}
