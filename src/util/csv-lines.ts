import { csvCells } from './csv-records.js';

/**
 * Turns chunks of a file that is still being written into complete lines. A trailing line
 * without its newline is held back until the rest arrives, so a reader never sees half a row.
 */
export class LineAssembler {
  private partial = '';

  push(chunk: string): string[] {
    const text = this.partial + chunk;
    const lastNewline = text.lastIndexOf('\n');
    if (lastNewline < 0) {
      this.partial = text;
      return [];
    }
    this.partial = text.slice(lastNewline + 1);
    const lines = text.slice(0, lastNewline).split('\n');
    for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1);
    return lines.filter((l) => l.length > 0);
  }
}

/** Maps the column names of a CSV header to positions; rows are read by name, not by order. */
export class CsvHeader {
  private readonly positions = new Map<string, number>();

  constructor(headerLine: string) {
    (csvCells([headerLine])[0] ?? []).forEach((name, i) => this.positions.set(name.trim(), i));
  }

  has(column: string): boolean {
    return this.positions.has(column);
  }

  /** Position of a column, or -1 when the file lacks it. */
  index(column: string): number {
    return this.positions.get(column) ?? -1;
  }
}
