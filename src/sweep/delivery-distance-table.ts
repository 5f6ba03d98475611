import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { type BinnedOutcomes, pooled, rebinned } from '../measurement/binned-outcomes.js';
import { RUN_DISTANCE_BIN_M } from '../measurement/distance-outcomes.js';
import { DELIVERY_OUTCOMES, readDeliveryDistance } from '../run/delivery-distance-file.js';
import { RUN_FILES } from '../run/run-files.js';
import { groupBy } from '../util/group-by.js';
import type { SweepResult } from './result-row.js';
import type { SweepSpec } from './sweep-folder.js';
import { axisColumn, columnPaths, orderResults } from './tables.js';
import type { SweepValue } from './values.js';

/** One grid point's outcomes by distance: its completed runs' delivery-distance.csv added up, in 50 m bins. */
export interface PointDelivery {
  values: Record<string, SweepValue>;
  runs: number;
  binned: BinnedOutcomes;
}

const OUTCOMES = DELIVERY_OUTCOMES;

/**
 * Per grid point, the outcomes of its completed runs by distance when sent, pooled over repeats and
 * summed into RUN_DISTANCE_BIN_M bins (a fleet run counts in 10 m bins). Points whose runs wrote
 * no delivery-distance.csv (no V2V) are left out.
 */
export function pointDeliveries(spec: SweepSpec, sweepDir: string, results: readonly SweepResult[]): PointDelivery[] {
  const completed = orderResults(
    spec,
    results.filter((r) => r.status === 'completed'),
  );
  const paths = columnPaths(spec);
  const groups = groupBy(completed, (r) => paths.map((p) => r.values[p]?.text).join('&'));
  return [...groups.values()].flatMap((runs) => {
    const read = runs.flatMap((r) => {
      const b = readDeliveryDistance(join(sweepDir, r.runDir, RUN_FILES.deliveryDistance));
      return b ? [rebinned(b, RUN_DISTANCE_BIN_M)] : [];
    });
    const binned = pooled(read);
    return binned ? [{ values: runs[0].values, runs: read.length, binned }] : [];
  });
}

/** The sweep's delivery-distance.csv: per point and 50 m bin, the frames and each outcome's count; undefined with no V2V at all. */
export function deliveryDistanceCsv(
  spec: SweepSpec,
  points: readonly PointDelivery[],
  results: readonly SweepResult[],
): string | undefined {
  if (!points.length) return undefined;
  const paths = columnPaths(spec);
  const header = [
    ...paths.map((p) => axisColumn(p, results)),
    'runs',
    'from_m',
    'to_m',
    'frames',
    'delivery_ratio',
    ...OUTCOMES.map((o) => o.replaceAll('-', '_')),
  ];
  const rows = points.flatMap((p) => {
    const bins = Math.max(1, ...Object.values(p.binned.counts).map((c) => c.length));
    return Array.from({ length: bins }, (_, k) => {
      const n = OUTCOMES.map((o) => p.binned.counts[o]?.[k] ?? 0);
      const frames = n.reduce((a, b) => a + b, 0);
      const w = p.binned.binWidth;
      return [
        ...paths.map((path) => p.values[path]?.value ?? p.values[path]?.text ?? ''),
        p.runs,
        k * w,
        (k + 1) * w,
        frames,
        frames ? +(n[0] / frames).toFixed(6) : '',
        ...n,
      ];
    });
  });
  return stringify([header, ...rows]);
}
