import { PNG } from 'pngjs';

/** A decoded greyscale map image, pixels in file order (row 0 = top). */
export interface GreyImage {
  width: number;
  height: number;
  /** 0 = black … 255 = white; colour images are averaged over R, G, B as map_server does. */
  grey: Uint8Array;
  /** Per-pixel alpha (255 = opaque) when the image has transparency, else undefined. */
  alpha?: Uint8Array;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Decodes PGM (P5 binary, P2 ASCII) or PNG, recognised by content rather than file name. */
export function decodeMapImage(bytes: Uint8Array): GreyImage {
  if (bytes.length >= 2 && bytes[0] === 0x50 /* P */ && (bytes[1] === 0x35 || bytes[1] === 0x32)) {
    return decodePgm(bytes);
  }
  if (PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return decodePng(bytes);
  throw new Error('unsupported image format (expected PGM P5/P2 or PNG); convert it, e.g. `convert map.jpg map.pgm`');
}

function decodePng(bytes: Uint8Array): GreyImage {
  const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  const n = png.width * png.height;
  const grey = new Uint8Array(n);
  let alpha: Uint8Array | undefined;
  const data = png.data;
  for (let i = 0; i < n; i++) {
    grey[i] = Math.round((data[4 * i] + data[4 * i + 1] + data[4 * i + 2]) / 3);
    const a = data[4 * i + 3];
    if (a !== 255) {
      alpha ??= new Uint8Array(n).fill(255);
      alpha[i] = a;
    }
  }
  return { width: png.width, height: png.height, grey, alpha };
}

function decodePgm(bytes: Uint8Array): GreyImage {
  const binary = bytes[1] === 0x35;
  let pos = 2;
  const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;

  /** Next whitespace-separated ASCII token, skipping `#` comments. */
  const token = (): string => {
    for (;;) {
      while (pos < bytes.length && isSpace(bytes[pos])) pos++;
      if (bytes[pos] === 0x23 /* # */) {
        while (pos < bytes.length && bytes[pos] !== 0x0a && bytes[pos] !== 0x0d) pos++;
        continue;
      }
      break;
    }
    const start = pos;
    while (pos < bytes.length && !isSpace(bytes[pos]) && bytes[pos] !== 0x23) pos++;
    if (start === pos) throw new Error('PGM ends early');
    return String.fromCharCode(...bytes.subarray(start, pos));
  };
  const headerInt = (what: string): number => {
    const t = token();
    const v = Number(t);
    if (!Number.isInteger(v) || v <= 0) throw new Error(`PGM header has a bad ${what}: "${t}"`);
    return v;
  };

  const width = headerInt('width');
  const height = headerInt('height');
  const maxval = headerInt('maxval');
  if (maxval > 65535) throw new Error(`PGM maxval ${maxval} is above 65535`);
  const n = width * height;
  const grey = new Uint8Array(n);
  const scale = (v: number) => (maxval === 255 ? v : Math.round((Math.min(v, maxval) * 255) / maxval));

  if (binary) {
    pos++; // exactly one whitespace byte separates maxval from the raster
    const bytesPerSample = maxval < 256 ? 1 : 2;
    if (bytes.length - pos < n * bytesPerSample) {
      throw new Error(`PGM raster is truncated: ${bytes.length - pos} bytes for ${width}x${height} pixels`);
    }
    for (let i = 0; i < n; i++) {
      const v = bytesPerSample === 1 ? bytes[pos + i] : (bytes[pos + 2 * i] << 8) | bytes[pos + 2 * i + 1];
      grey[i] = scale(v);
    }
  } else {
    for (let i = 0; i < n; i++) {
      const t = token();
      const v = Number(t);
      if (!Number.isInteger(v) || v < 0) throw new Error(`PGM pixel ${i} is not a number: "${t}"`);
      grey[i] = scale(v);
    }
  }
  return { width, height, grey };
}

/** Encodes a binary (P5) PGM with 8-bit samples, rows top first. */
export function encodePgm(width: number, height: number, grey: Uint8Array, comment?: string): Uint8Array {
  const header = `P5\n${comment ? `# ${comment}\n` : ''}${width} ${height}\n255\n`;
  const out = new Uint8Array(header.length + grey.length);
  for (let i = 0; i < header.length; i++) out[i] = header.charCodeAt(i);
  out.set(grey, header.length);
  return out;
}
