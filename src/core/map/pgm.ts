/** What a PGM header says, and where its raster starts. */
export interface PgmHeader {
  binary: boolean; // P5; P2 is ASCII
  width: number;
  height: number;
  maxval: number;
  rasterStart: number; // byte offset of the first sample
}

export const isPgm = (bytes: Uint8Array) => bytes.length >= 2 && bytes[0] === 0x50 /* P */ && (bytes[1] === 0x35 || bytes[1] === 0x32);

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;

/** The longest number a header or an ASCII sample can sensibly be written with. */
const MAX_TOKEN_LENGTH = 20;

/** Reads whitespace-separated ASCII tokens, skipping `#` comments. */
class TokenReader {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  /** The next token, or undefined at the end of the data. */
  next(): string | undefined {
    const { bytes } = this;
    for (;;) {
      while (this.pos < bytes.length && isSpace(bytes[this.pos])) this.pos++;
      if (bytes[this.pos] !== 0x23 /* # */) break;
      while (this.pos < bytes.length && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos++;
    }
    const start = this.pos;
    while (this.pos < bytes.length && !isSpace(bytes[this.pos]) && bytes[this.pos] !== 0x23) this.pos++;
    if (start === this.pos) return undefined;
    const end = Math.min(this.pos, start + MAX_TOKEN_LENGTH + 1);
    return String.fromCharCode(...bytes.subarray(start, end)) + (end < this.pos ? '…' : '');
  }
}

/** Parses the header only (no allocation proportional to the image); throws with a message naming the bad field. */
export function parsePgmHeader(bytes: Uint8Array): PgmHeader {
  const tokens = new TokenReader(bytes, 2);
  const field = (what: string, example: string): number => {
    const t = tokens.next();
    if (t === undefined) throw new Error(`PGM header ends before its ${what}; a header reads e.g. "P5 ${example}"`);
    const v = /^\d+$/.test(t) ? Number(t) : NaN;
    if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`PGM header has a bad ${what}: "${t}" (must be a whole number above 0)`);
    return v;
  };
  const width = field('width', '<width> <height> 255');
  const height = field('height', '<width> <height> 255');
  const maxval = field('maxval', `${width} ${height} 255`);
  if (maxval > 65535) throw new Error(`PGM maxval ${maxval} is above 65535`);
  // Exactly one whitespace byte separates maxval from a binary raster.
  return { binary: bytes[1] === 0x35, width, height, maxval, rasterStart: tokens.pos + 1 };
}

/** Decodes the raster to 0..255 greys, row 0 = top. The caller has checked width·height against its limit. */
export function decodePgmRaster(bytes: Uint8Array, header: PgmHeader): Uint8Array {
  const { width, height, maxval, binary } = header;
  const n = width * height;
  // Samples above maxval are clamped to it, as before: maps that load today keep loading.
  const scale = (v: number) => (maxval === 255 ? Math.min(v, 255) : Math.round((Math.min(v, maxval) * 255) / maxval));
  if (binary) {
    const bytesPerSample = maxval < 256 ? 1 : 2;
    const available = bytes.length - header.rasterStart;
    if (available < n * bytesPerSample) {
      throw new Error(`PGM raster is truncated: ${Math.max(available, 0)} bytes for ${width}x${height} pixels`);
    }
    const at = header.rasterStart;
    // 8-bit samples are their own greys: a copy, not a loop a pixel.
    if (maxval === 255) return new Uint8Array(bytes.subarray(at, at + n));
    const grey = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      grey[i] = scale(bytesPerSample === 1 ? bytes[at + i] : (bytes[at + 2 * i] << 8) | bytes[at + 2 * i + 1]);
    }
    return grey;
  }
  const grey = new Uint8Array(n);
  const tokens = new TokenReader(bytes, header.rasterStart - 1);
  for (let i = 0; i < n; i++) {
    const t = tokens.next();
    if (t === undefined) throw new Error(`PGM raster is truncated: ${i} of ${width}x${height} pixels`);
    if (!/^\d+$/.test(t)) throw new Error(`PGM pixel ${i} is not a number: "${t}"`);
    grey[i] = scale(Number(t));
  }
  return grey;
}

/** Encodes a binary (P5) PGM with 8-bit samples, rows top first. */
export function encodePgm(width: number, height: number, grey: Uint8Array, comment?: string): Uint8Array {
  const header = `P5\n${comment ? `# ${comment}\n` : ''}${width} ${height}\n255\n`;
  const out = new Uint8Array(header.length + grey.length);
  for (let i = 0; i < header.length; i++) out[i] = header.charCodeAt(i);
  out.set(grey, header.length);
  return out;
}
