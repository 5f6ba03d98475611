const SPACE = 0x20;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * Reads a line's space-separated fields in place, one after another. ns-3's outcome lines come by
 * the hundred thousand in a fleet's run, and `split` made an array and a string for every field.
 */
export class LineFields {
  private line = '';
  private at = 0;

  /** Starts on a line; returns this. */
  reset(line: string): this {
    this.line = line;
    this.at = 0;
    return this;
  }

  /** The next field as a whole number written in decimal digits (as Number() reads it), NaN if it is not one. */
  integer(): number {
    const { line } = this;
    const start = this.at;
    let value = 0;
    let i = start;
    for (; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (c === SPACE) break;
      if (c < ZERO || c > NINE) {
        this.skip(i);
        return NaN;
      }
      value = value * 10 + (c - ZERO);
    }
    this.at = i + 1;
    return i === start || value > Number.MAX_SAFE_INTEGER ? Number(line.slice(start, i)) : value;
  }

  /** The next field as text. */
  text(): string {
    const start = this.at;
    const end = this.end(start);
    this.at = end + 1;
    return this.line.slice(start, end);
  }

  private skip(from: number): void {
    this.at = this.end(from) + 1;
  }

  private end(from: number): number {
    const end = this.line.indexOf(' ', from);
    return end < 0 ? this.line.length : end;
  }
}
