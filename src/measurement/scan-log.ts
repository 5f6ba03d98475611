import type { LaserScan } from '../core/control/vehicle-context.js';
import { CsvLog } from './csv-log.js';

export const SCAN_COLUMNS = ['t_s', 'vehicle', 'angle_min', 'angle_increment', 'ranges'] as const;

/**
 * scans.csv (`record: { scans: true }`): every lidar scan as the car received it, ranges to the
 * millimetre and joined with ';' so a scan stays one CSV cell. `cavsim view` draws them.
 */
export class ScanLog {
  private readonly log: CsvLog;

  constructor(path: string) {
    this.log = new CsvLog(path, SCAN_COLUMNS);
  }

  add(vehicle: string, scan: LaserScan): void {
    let ranges = '';
    for (let i = 0; i < scan.ranges.length; i++) ranges += (i ? ';' : '') + String(Math.round(scan.ranges[i] * 1000) / 1000);
    this.log.add([scan.t, vehicle, scan.angleMin, scan.angleIncrement, ranges]);
  }

  /** Sees every scan row as it is added (unquoted text). */
  set onRow(tap: ((cells: string[]) => void) | undefined) {
    this.log.onRow = tap;
  }

  flush(): void {
    this.log.flush();
  }

  close(): void {
    this.log.close();
  }
}
