import { CsvHeader } from '../../util/csv-lines.js';
import { csvCells } from '../../util/csv-records.js';

/** One recorded lidar scan, thinned for drawing. */
export interface ScanForDrawing {
  vehicle: string;
  t: number;
  angleMin: number;
  angleIncrement: number;
  ranges: number[];
}

interface VehicleScans {
  t: number[];
  angleMin: number[];
  angleIncrement: number[];
  /** Kept as text and parsed only when a scan is drawn: most scans never are. */
  ranges: string[];
}

/** Rays a scan is thinned to: more than a screen shows between two cars, far fewer bytes. */
export const MAX_DRAWN_RAYS = 360;

/**
 * The lines of scans.csv (t_s,vehicle,angle_min,angle_increment,ranges with ';' between ranges),
 * indexed per car by time so the page can ask for "the latest scan of each car at t".
 */
export class ScanIndex {
  private header?: CsvHeader;
  private readonly byVehicle = new Map<string, VehicleScans>();

  get isEmpty(): boolean {
    return this.byVehicle.size === 0;
  }

  ingest(lines: readonly string[]): void {
    let start = 0;
    if (!this.header && lines.length) {
      this.header = new CsvHeader(lines[0]);
      start = 1;
    }
    const h = this.header;
    if (!h) return;
    const [ti, vi, ami, aii, ri] = ['t_s', 'vehicle', 'angle_min', 'angle_increment', 'ranges'].map((c) => h.index(c));
    for (const cells of csvCells(lines.slice(start))) {
      const t = Number(cells[ti]);
      const vehicle = cells[vi];
      if (!vehicle || !Number.isFinite(t) || cells[ri] === undefined) continue;
      let s = this.byVehicle.get(vehicle);
      if (!s) this.byVehicle.set(vehicle, (s = { t: [], angleMin: [], angleIncrement: [], ranges: [] }));
      s.t.push(t);
      s.angleMin.push(Number(cells[ami]));
      s.angleIncrement.push(Number(cells[aii]));
      s.ranges.push(cells[ri]);
    }
  }

  /** Each car's latest scan at or before t (none for a car whose first scan comes later). */
  at(t: number, maxRays = MAX_DRAWN_RAYS): ScanForDrawing[] {
    const out: ScanForDrawing[] = [];
    for (const [vehicle, s] of this.byVehicle) {
      const i = lastIndexAtOrBefore(s.t, t);
      if (i < 0) continue;
      const all = s.ranges[i].split(';').map(Number);
      const stride = Math.max(1, Math.ceil(all.length / maxRays));
      const ranges: number[] = [];
      for (let k = 0; k < all.length; k += stride) ranges.push(Math.round(all[k] * 1000) / 1000);
      out.push({ vehicle, t: s.t[i], angleMin: s.angleMin[i], angleIncrement: s.angleIncrement[i] * stride, ranges });
    }
    return out;
  }
}

/** Binary search in an ascending array: the last index with value <= t, or -1. */
export function lastIndexAtOrBefore(sorted: readonly number[], t: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= t + 1e-9) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
