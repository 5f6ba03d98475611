import { closeSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';

export type Cell = string | number | boolean | undefined;

/**
 * A CSV file written as the run goes: the header at open, rows buffered per call to flush()
 * and written straight to the file descriptor, so a crash loses at most the current step.
 */
export class CsvLog {
  private readonly fd: number;
  private pending: Cell[][] = [];
  private closed = false;

  constructor(readonly path: string, readonly columns: readonly string[]) {
    this.fd = openSync(path, 'w');
    writeSync(this.fd, stringify([columns as string[]]));
  }

  add(row: Cell[]): void {
    this.pending.push(row);
  }

  flush(): void {
    if (this.closed || !this.pending.length) return;
    writeSync(this.fd, stringify(this.pending.map((r) => r.map(formatCell))));
    this.pending = [];
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    closeSync(this.fd);
  }
}

/** Fixed precision keeps files small and byte-identical across runs of the same seed. */
function formatCell(cell: Cell): string {
  if (cell === undefined) return '';
  if (typeof cell === 'number') return Number.isInteger(cell) ? String(cell) : String(+cell.toFixed(6));
  return String(cell);
}
