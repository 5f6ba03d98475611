import { RUN_FILES } from '../../run/run-files.js';
import { readCsvRecords } from '../../util/csv-records.js';

/** One row of a run's vehicles.csv for one car: what the car did at time t. */
export interface TrajectorySample {
  t: number;
  x: number;
  y: number;
  yaw: number;
  speed: number;
  collided: boolean;
}

const NEEDED = ['t_s', 'vehicle', 'x_m', 'y_m', 'yaw_rad', 'speed_mps'] as const;

/**
 * Reads one car's rows from a run's vehicles.csv (columns t_s, vehicle, x_m, y_m, yaw_rad,
 * speed_mps, …, collided). Throws a RangeError naming the line, or the cars the file has when
 * the wanted one is missing.
 */
export function parseVehicleTrajectory(text: string, vehicle: string): TrajectorySample[] {
  const records = readCsvRecords(text);
  if (!records.length) throw new RangeError('vehicles.csv is empty');
  const [{ cells: header }, ...body] = records;
  const col = Object.fromEntries(NEEDED.map((c) => [c, header.indexOf(c)])) as Record<(typeof NEEDED)[number], number>;
  const missing = NEEDED.filter((c) => col[c] < 0);
  if (missing.length) throw new RangeError(`${RUN_FILES.vehicles} lacks column(s) ${missing.join(', ')}`);
  const collidedCol = header.indexOf('collided');
  const seen = new Set<string>();
  const out: TrajectorySample[] = [];
  for (const { cells, line } of body) {
    const name = cells[col.vehicle];
    seen.add(name);
    if (name !== vehicle) continue;
    const num = (c: number, what: string) => {
      const v = Number(cells[c]);
      if (cells[c] === undefined || cells[c] === '' || !Number.isFinite(v))
        throw new RangeError(`${RUN_FILES.vehicles} line ${line}: ${what} is "${cells[c] ?? ''}", not a number`);
      return v;
    };
    out.push({
      t: num(col.t_s, 't_s'),
      x: num(col.x_m, 'x_m'),
      y: num(col.y_m, 'y_m'),
      yaw: num(col.yaw_rad, 'yaw_rad'),
      speed: num(col.speed_mps, 'speed_mps'),
      collided: collidedCol >= 0 && cells[collidedCol] === '1',
    });
  }
  if (!out.length) throw new RangeError(`no vehicle "${vehicle}" in ${RUN_FILES.vehicles}; it has ${[...seen].join(', ') || 'no rows'}`);
  return out;
}
