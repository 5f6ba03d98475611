import { closeSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';

export type Cell = string | number | boolean | undefined;

/**
 * A CSV file written as the run goes: the header at open, rows buffered and written straight to
 * the file descriptor on flush(), so a crash loses at most the rows of the current step.
 */
export class CsvLog {
  private readonly fd: number;
  private pending = '';
  private closed = false;
  /** Sees every row as it is added, as the text a CSV reader gets back (unquoted). */
  onRow?: (cells: string[]) => void;

  constructor(readonly path: string, readonly columns: readonly string[]) {
    this.fd = openSync(path, 'w');
    writeSync(this.fd, stringify([columns as string[]]));
  }

  add(row: readonly Cell[]): void {
    let line = '';
    if (this.onRow) {
      // each number formatted once, for the line and the listener alike
      const cells = row.map(cellText);
      for (let i = 0; i < cells.length; i++) line += (i ? ',' : '') + (typeof row[i] === 'number' ? cells[i] : quoted(cells[i]));
      this.pending += line + '\n';
      this.onRow(cells);
      return;
    }
    for (let i = 0; i < row.length; i++) line += (i ? ',' : '') + formatCell(row[i]);
    this.pending += line + '\n';
  }

  flush(): void {
    if (this.closed || !this.pending) return;
    writeSync(this.fd, this.pending);
    this.pending = '';
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    closeSync(this.fd);
  }
}

/** Formats cells that need quoting a few times, so the first real one (an event's detail) is not slow. */
export function warmUpCsvFormatting(rounds = 50): void {
  for (let i = 0; i < rounds; i++) formatCell(`{"warm":${i},"text":"a, b"}`);
}

const SAFE_TEXT = /^[A-Za-z0-9_.:\-* ]*$/;

/**
 * Numbers rounded to 1e-6 keep files small and byte-identical across runs of the same seed.
 * Plain text goes out as is; anything that needs CSV quoting goes through csv-stringify.
 */
function formatCell(cell: Cell): string {
  if (cell === undefined) return '';
  if (typeof cell === 'number') return formatMicro(cell);
  return quoted(String(cell));
}

const quoted = (text: string) => (SAFE_TEXT.test(text) ? text : stringify([[text]]).slice(0, -1));

/** A cell as a CSV reader reads it back: numbers rounded as written, nothing quoted. */
export function cellText(cell: Cell): string {
  if (cell === undefined) return '';
  return typeof cell === 'number' ? formatMicro(cell) : String(cell);
}

/** Same text as String(Math.round(v * 1e6) / 1e6), built from integers: several times faster. */
export function formatMicro(v: number): string {
  if (Number.isInteger(v)) return String(v);
  const micro = Math.round(v * 1e6);
  if (!Number.isSafeInteger(micro)) return String(v);
  const negative = micro < 0;
  const abs = negative ? -micro : micro;
  const whole = Math.floor(abs / 1e6);
  let frac = abs - whole * 1e6;
  if (frac === 0) return negative && whole !== 0 ? `-${whole}` : String(whole);
  let digits = 6;
  while (frac % 10 === 0) {
    frac /= 10;
    digits--;
  }
  const fracText = String(frac).padStart(digits, '0');
  return `${negative ? '-' : ''}${whole}.${fracText}`;
}
