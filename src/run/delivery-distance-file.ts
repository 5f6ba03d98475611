import { CHANNEL_LOSS_REASONS } from '../channel/frames.js';
import type { OutcomeTally } from '../channel/outcome-tally.js';
import type { BinnedOutcomes } from '../measurement/binned-outcomes.js';
import { type Cell, CsvLog } from '../measurement/csv-log.js';
import { readCsvRecords } from '../util/csv-records.js';
import { FLEET_TALLY_MAX_M, fleetBinned } from './fleet-v2v.js';
import { readRunFile } from './read-run-file.js';

/**
 * Every outcome a channel reports, in frames.ts's order, then `malformed` (dropped at the receiver's
 * gate, outcome-tally.ts): delivery-distance.csv's columns after the distance.
 */
const OUTCOMES = ['delivered', ...CHANNEL_LOSS_REASONS, 'malformed'] as const;
const column = (outcome: string) => outcome.replaceAll('-', '_');

export const DELIVERY_DISTANCE_COLUMNS = ['from_m', 'to_m', 'frames', ...OUTCOMES.map(column)] as const;

/**
 * delivery-distance.csv: a fleet run's (frame, receiver) outcomes by distance when sent, a row per
 * 10 m bin to FLEET_TALLY_MAX_M, then one with no `to_m` for everything further or of no computed
 * distance (receivers beyond the radio's reach, frames dropped from their sender's queue).
 */
export function writeDeliveryDistance(path: string, tally: OutcomeTally): void {
  const { binned, beyond } = fleetBinned(tally);
  const bins = FLEET_TALLY_MAX_M / binned.binWidth;
  const log = new CsvLog(path, DELIVERY_DISTANCE_COLUMNS);
  const row = (from: number, to: number | undefined, n: (outcome: string) => number) => {
    const cells: Cell[] = OUTCOMES.map(n);
    log.add([from, to, cells.reduce<number>((s, c) => s + (c as number), 0), ...cells]);
  };
  try {
    for (let k = 0; k < bins; k++) row(k * binned.binWidth, (k + 1) * binned.binWidth, (o) => binned.counts[o]?.[k] ?? 0);
    row(FLEET_TALLY_MAX_M, undefined, (o) => beyond[o] ?? 0);
  } finally {
    log.close();
  }
}

/** delivery-distance.csv read back as counts (its bins with an end); undefined when the run folder has none. */
export function readDeliveryDistance(path: string): BinnedOutcomes | undefined {
  const text = readRunFile(path);
  if (text === undefined) return undefined;
  const [header, ...records] = readCsvRecords(text);
  const at = new Map(header.cells.map((c, i) => [c, i]));
  const bounded = records.filter((r) => r.cells[at.get('to_m')!] !== '');
  const from = bounded.map((r) => Number(r.cells[at.get('from_m')!]));
  const binWidth = bounded.length ? Number(bounded[0].cells[at.get('to_m')!]) - from[0] : FLEET_TALLY_MAX_M;
  const counts: Record<string, number[]> = {};
  for (const outcome of OUTCOMES) {
    const k = at.get(column(outcome));
    if (k === undefined) continue;
    const n = new Array<number>(bounded.length).fill(0);
    bounded.forEach((r, i) => (n[Math.round(from[i] / binWidth)] = Number(r.cells[k]) || 0));
    if (n.some((v) => v > 0)) counts[outcome] = n;
  }
  return { binWidth, counts };
}
