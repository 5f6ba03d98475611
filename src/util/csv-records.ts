import type { Options } from 'csv-parse/sync';
import { requireCjs } from './require-cjs.js';

/** csv-parse loads on the first CSV read, as its one-file CommonJS build (util/require-cjs.ts says why). */
const csvParse = () => requireCjs('csv-parse/sync') as typeof import('csv-parse/sync');

/** One CSV record and the (1-based) line it ends on, for messages that name the line. */
export interface CsvRecord {
  cells: string[];
  line: number;
}

/**
 * Every CSV read in cavsim goes through csv-parse: quoting as csv-stringify writes it, blank lines
 * skipped, cells trimmed, and with `comments` lines starting with # ignored. A malformed file
 * (an unclosed quote) throws a RangeError naming its line.
 */
export function readCsvRecords(text: string, opts: { comments?: boolean } = {}): CsvRecord[] {
  try {
    const parsed = csvParse().parse(text, {
      info: true,
      // Hand-edited files mix line endings; left to itself csv-parse takes the first line's for all.
      record_delimiter: ['\r\n', '\n'],
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      ...(opts.comments ? { comment: '#', comment_no_infix: true } : {}),
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return parsed.map((r) => ({ cells: r.record, line: r.info.lines }));
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    throw new RangeError(
      `${line ? `line ${line}: ` : ''}not valid CSV (${(err as Error).message.replace(/^Invalid Record Length: |^Quote Not Closed: /, '')})`,
    );
  }
}

const TAILED: Options = { relax_column_count: true, skip_empty_lines: true };

/**
 * The cells of complete lines (a file being tailed hands them over a batch at a time). A damaged
 * line (an unclosed quote) is dropped instead of failing the batch, so the view still shows the rest.
 */
export function csvCells(lines: readonly string[]): string[][] {
  if (!lines.length) return [];
  try {
    return csvParse().parse(lines.join('\n'), TAILED);
  } catch {
    return lines.flatMap((line) => {
      try {
        return csvParse().parse(line, TAILED);
      } catch {
        return [];
      }
    });
  }
}
