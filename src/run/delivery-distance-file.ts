import { CHANNEL_LOSS_REASONS } from '../channel/frames.js';
import type { OutcomeTally } from '../channel/outcome-tally.js';
import type { BinnedOutcomes } from '../measurement/binned-outcomes.js';
import { type Cell, CsvLog } from '../measurement/csv-log.js';
import { DistanceOutcomes } from '../measurement/distance-outcomes.js';
import { readCsvRecords } from '../util/csv-records.js';
import { FLEET_TALLY_MAX_M, fleetBinned } from './fleet-v2v.js';
import { readRunFile } from './read-run-file.js';

/**
 * Every outcome a channel reports, in frames.ts's order, then `malformed` (dropped at the receiver's
 * gate, outcome-tally.ts): delivery-distance.csv's columns after the distance.
 */
export const DELIVERY_OUTCOMES = ['delivered', ...CHANNEL_LOSS_REASONS, 'malformed'] as const;
const OUTCOMES = DELIVERY_OUTCOMES;
const column = (outcome: string) => outcome.replaceAll('-', '_');

export const DELIVERY_DISTANCE_COLUMNS = ['from_m', 'to_m', 'frames', ...OUTCOMES.map(column)] as const;

/**
 * delivery-distance.csv: a run's (frame, receiver) outcomes by distance when sent, then one row with
 * no `to_m` for everything further or of no computed distance (receivers beyond the radio's reach,
 * frames dropped from their sender's queue). A fleet run's tally (an OutcomeTally) gives a row per
 * 10 m bin to FLEET_TALLY_MAX_M; a run with a v2v.csv (DistanceOutcomes) a row per 50 m bin up to
 * its furthest frame. Frames still in flight at the end are not counted.
 */
export function writeDeliveryDistance(path: string, outcomes: OutcomeTally | DistanceOutcomes): void {
  const fleet = !(outcomes instanceof DistanceOutcomes);
  const { binned, beyond } = fleet ? fleetBinned(outcomes) : outcomes.binned();
  const bins = fleet ? FLEET_TALLY_MAX_M / binned.binWidth : Math.max(...Object.values(binned.counts).map((c) => c.length), 1);
  const log = new CsvLog(path, DELIVERY_DISTANCE_COLUMNS);
  const row = (from: number, to: number | undefined, n: (outcome: string) => number) => {
    const cells: Cell[] = OUTCOMES.map(n);
    log.add([from, to, cells.reduce<number>((s, c) => s + (c as number), 0), ...cells]);
  };
  try {
    for (let k = 0; k < bins; k++) row(k * binned.binWidth, (k + 1) * binned.binWidth, (o) => binned.counts[o]?.[k] ?? 0);
    row(bins * binned.binWidth, undefined, (o) => beyond[o] ?? 0);
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
