import { closeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { appendWhole } from '../util/append-whole.js';
import { openForWriting } from '../util/write-no-follow.js';

export type Cell = string | number | boolean | undefined;

/**
 * A CSV file written as the run goes: the header at open, rows buffered and written straight to
 * the file descriptor on flush(), so a crash loses at most the rows of the current step.
 */
export class CsvLog {
  private readonly fd: number;
  /** Rows not yet written, as the file's bytes: numbers go in digit by digit, with no string made. */
  private buf = Buffer.allocUnsafe(64 * 1024);
  private len = 0;
  private closed = false;
  /** Bytes in the file, all of them whole rows. */
  private size = 0;
  /** Set when a write failed: nothing more goes to the file, which ends on its last whole row. */
  private broken = false;
  /** Sees every row as it is added, as the text a CSV reader gets back (unquoted). */
  onRow?: (cells: string[]) => void;

  constructor(
    readonly path: string,
    readonly columns: readonly string[],
  ) {
    this.fd = openForWriting(path);
    this.size = appendWhole(this.fd, path, Buffer.from(stringify([columns as string[]])), 0);
  }

  add(row: readonly Cell[]): void {
    if (this.onRow) {
      // each number formatted once, for the file and the listener alike
      const cells = row.map(cellText);
      for (let i = 0; i < cells.length; i++) {
        if (i) this.byte(COMMA);
        this.text(typeof row[i] === 'number' ? cells[i] : quoted(cells[i]));
      }
      this.byte(NEWLINE);
      this.onRow(cells);
      return;
    }
    for (let i = 0; i < row.length; i++) {
      if (i) this.byte(COMMA);
      const cell = row[i];
      if (typeof cell === 'number') {
        this.reserve(MAX_NUMBER_BYTES);
        this.len = writeMicro(this.buf, this.len, cell);
      } else if (cell !== undefined) this.text(quoted(String(cell)));
    }
    this.byte(NEWLINE);
  }

  /**
   * A row cell by cell, for the per-step logs with no listener: no array per row. Cells after the
   * first take their comma; `endRow` ends the line.
   */
  number(v: number): this {
    this.reserve(MAX_NUMBER_BYTES + 1);
    if (this.column++) this.buf[this.len++] = COMMA;
    this.len = writeMicro(this.buf, this.len, v);
    return this;
  }

  /** A text cell (quoted if it must be), or an empty one for undefined. */
  cell(v: string | undefined): this {
    if (this.column++) this.byte(COMMA);
    if (v !== undefined) this.text(quoted(v));
    return this;
  }

  endRow(): void {
    this.column = 0;
    this.byte(NEWLINE);
  }

  private column = 0;

  /** Writes the buffered rows; on a full disk throws NoSpaceError once, and drops rows from then on. */
  flush(): void {
    if (this.closed || !this.len) return;
    const len = this.len;
    this.len = 0;
    if (this.broken) return;
    try {
      this.size = appendWhole(this.fd, this.path, this.buf, this.size, len);
    } catch (err) {
      this.broken = true;
      throw err;
    }
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.closed = true;
      closeSync(this.fd);
    }
  }

  private byte(b: number): void {
    this.reserve(1);
    this.buf[this.len++] = b;
  }

  private text(t: string): void {
    const n = t.length;
    if (n <= SHORT_TEXT) {
      // cells are short and mostly ASCII: copied code by code, without a call into C++ for each
      this.reserve(n);
      const buf = this.buf;
      let at = this.len;
      for (let i = 0; i < n; i++) {
        const code = t.charCodeAt(i);
        if (code >= 0x80) return this.encoded(t);
        buf[at++] = code;
      }
      this.len = at;
      return;
    }
    this.encoded(t);
  }

  private encoded(t: string): void {
    this.reserve(Buffer.byteLength(t));
    this.len += this.buf.write(t, this.len, 'utf8');
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }
}

const COMMA = 0x2c;
const NEWLINE = 0x0a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
/** Text up to this many characters is copied byte by byte when it is ASCII. */
const SHORT_TEXT = 64;
/** Longer than any text formatMicro gives (a double's String() is at most 24 characters). */
const MAX_NUMBER_BYTES = 32;
const INT32_LIMIT = 2 ** 31;

/** Writes what formatMicro(v) returns into `buf` at `at`; returns the end. The bytes are the same (tested). */
export function writeMicro(buf: Buffer, at: number, v: number): number {
  if (Number.isInteger(v)) {
    if (v > -INT32_LIMIT && v < INT32_LIMIT) {
      if (v < 0) {
        buf[at++] = MINUS;
        v = -v;
      }
      return writeDigits(buf, at, v, 0);
    }
    return at + buf.write(String(v), at, 'latin1');
  }
  const micro = Math.round(v * 1e6);
  if (!Number.isSafeInteger(micro)) return at + buf.write(String(v), at, 'latin1');
  const negative = micro < 0;
  const abs = negative ? -micro : micro;
  const whole = Math.floor(abs / 1e6);
  let frac = abs - whole * 1e6;
  if (whole >= INT32_LIMIT) return at + buf.write(formatMicro(v), at, 'latin1');
  if (negative && (whole !== 0 || frac !== 0)) buf[at++] = MINUS;
  at = writeDigits(buf, at, whole, 0);
  if (frac === 0) return at;
  buf[at++] = DOT;
  // all six decimals, then the trailing zeros taken back (frac is not 0: a nonzero digit stops it)
  for (let i = at + 5; i >= at; i--) {
    const q = (frac / 10) | 0;
    buf[i] = ZERO + (frac - q * 10);
    frac = q;
  }
  let end = at + 6;
  while (buf[end - 1] === ZERO) end--;
  return end;
}

/** `n` (0 <= n < 2^31) in decimal, padded with zeros to `width` digits. */
function writeDigits(buf: Buffer, at: number, n: number, width: number): number {
  let digits = 1;
  for (let m = n; m >= 10; m = (m / 10) | 0) digits++;
  const end = at + Math.max(digits, width);
  for (let i = end - 1; i >= at; i--) {
    const q = (n / 10) | 0;
    buf[i] = ZERO + (n - q * 10);
    n = q;
  }
  return end;
}

/** Formats cells that need quoting a few times, so the first real one (an event's detail) is not slow. */
export function warmUpCsvFormatting(rounds = 50): void {
  for (let i = 0; i < rounds; i++) quoted(`{"warm":${i},"text":"a, b"}`);
}

const SAFE_TEXT = /^[A-Za-z0-9_.:\-* ]*$/;

/**
 * Numbers rounded to 1e-6 keep files small and byte-identical across runs of the same seed.
 * Plain text goes out as is; anything that needs CSV quoting goes through csv-stringify.
 */
const quoted = (text: string) => (SAFE_TEXT.test(text) ? text : stringify([[text]]).slice(0, -1));

/** A cell as a CSV reader reads it back: numbers rounded as written, nothing quoted. */
export function cellText(cell: Cell): string {
  if (cell === undefined) return '';
  return typeof cell === 'number' ? formatMicro(cell) : String(cell);
}

/** A CSV cell as a number; `fallback` for an empty or missing cell. */
export const numberOr = (cell: string | undefined, fallback: number): number =>
  cell === undefined || cell === '' ? fallback : Number(cell);

/** The number a CSV reader reads back from formatMicro(v), without the text (tested). */
export function csvNumber(v: number): number {
  if (Number.isInteger(v)) return v === 0 ? 0 : v; // String(-0) is '0'
  const micro = Math.round(v * 1e6);
  if (!Number.isSafeInteger(micro)) return v;
  const back = micro / 1e6;
  return back === 0 ? 0 : back;
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
