import { type CarCbr, carCbr } from '../measurement/channel-busy-log.js';
import { readCsvRecords } from '../util/csv-records.js';
import { readRunFile } from './read-run-file.js';

/** Every car's mean and largest CBR window from a run's cbr.csv; undefined when the run has none. */
export function readCarCbr(path: string): CarCbr[] | undefined {
  const text = readRunFile(path);
  if (text === undefined) return undefined;
  const [header, ...records] = readCsvRecords(text);
  const vehicle = header.cells.indexOf('vehicle');
  const cbr = header.cells.indexOf('cbr');
  return carCbr(records.map((r) => ({ car: r.cells[vehicle], busyRatio: Number(r.cells[cbr]) })));
}
