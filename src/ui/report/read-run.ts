import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserInputError } from '../../errors.js';
import { readRunFile } from '../../run/read-run-file.js';
import { readRunSummary } from '../../run/read-run-folder.js';
import { RUN_FILES } from '../../run/run-files.js';
import type { RunSummary } from '../../run/summary.js';
import { requireCjs } from '../../util/require-cjs.js';

// The CommonJS build, which csv-records.ts loads too: one csv-parse, not two (util/require-cjs.ts).
const { parse } = requireCjs('csv-parse/sync') as typeof import('csv-parse/sync');

export interface VehicleSample {
  t: number;
  vehicle: string;
  speed: number;
}

export interface PairSample {
  t: number;
  pair: string;
  distance: number;
  /** Bumper to bumper, 0 on contact; null in runs written before pairs.csv had it. */
  gap: number | null;
  ttc: number | null;
}

export interface RunEventRow {
  t: number;
  vehicle: string;
  event: string;
}

/** What the figures of one run need, read from its folder. */
export interface RunTraces {
  dir: string;
  summary: RunSummary;
  vehicles: VehicleSample[];
  pairs: PairSample[];
  events: RunEventRow[];
  /** V2V rows whose fate is known (not still in flight at the end) and that say how far apart the cars were. */
  deliveries: { distance: number; delivered: boolean }[];
}

function rows(path: string): Record<string, string>[] {
  const text = readRunFile(path);
  if (text === undefined) return [];
  try {
    return parse(text, { columns: true, skip_empty_lines: true });
  } catch (err) {
    throw new UserInputError(
      `${path} is damaged: ${err instanceof Error ? err.message : String(err)}`,
      [],
      'restore it, or run the scenario again',
    );
  }
}

const num = (s: string | undefined) => (s === undefined || s === '' ? null : Number(s));

export function isRunDir(dir: string): boolean {
  return existsSync(join(dir, RUN_FILES.summary));
}

export function readRunTraces(dir: string): RunTraces {
  if (!isRunDir(dir)) throw new UserInputError(`${dir} is not a run folder`, [`${join(dir, RUN_FILES.summary)}: not found`]);
  const summary = readRunSummary(dir);
  return {
    dir,
    summary,
    vehicles: rows(join(dir, RUN_FILES.vehicles)).map((r) => ({ t: Number(r.t_s), vehicle: r.vehicle, speed: Number(r.speed_mps) })),
    pairs: rows(join(dir, RUN_FILES.pairs)).map((r) => ({
      t: Number(r.t_s),
      pair: `${r.a}–${r.b}`,
      distance: Number(r.distance_m),
      gap: num(r.gap_m),
      ttc: num(r.ttc_s),
    })),
    events: rows(join(dir, RUN_FILES.events)).map((r) => ({ t: Number(r.t_s), vehicle: r.vehicle, event: r.event })),
    deliveries: rows(join(dir, RUN_FILES.v2v))
      .filter((r) => r.distance_m !== undefined && r.distance_m !== '' && r.outcome !== 'run-ended' && r.outcome !== 'not-received')
      .map((r) => ({ distance: Number(r.distance_m), delivered: r.outcome === 'delivered' })),
  };
}
