import { requireCjs } from '../../util/require-cjs.js';
import { decodePgmRaster, isPgm, parsePgmHeader } from './pgm.js';

export { encodePgm } from './pgm.js';

/** pngjs loads with the first PNG map: the shipped maps are PGM, and `validate` starts without it. */
const pngjs = () => requireCjs('pngjs') as typeof import('pngjs');

/** A decoded greyscale map image, pixels in file order (row 0 = top). */
export interface GreyImage {
  width: number;
  height: number;
  /** 0 = black … 255 = white; colour images are averaged over R, G, B as map_server does. */
  grey: Uint8Array;
  /** Per-pixel alpha (255 = opaque) when the image has transparency, else undefined. */
  alpha?: Uint8Array;
}

/**
 * The largest map cavsim decodes: 4096 x 4096 pixels, i.e. 205 m square at 5 cm per cell (F1TENTH
 * track maps are about 2000 x 2000). Decoding it takes about 0.3 s (PGM) to 0.8 s (PNG) and
 * 120-190 MB; the cost grows with the pixel count, and validation decodes a map twice.
 */
export const MAX_MAP_PIXELS = 4096 * 4096;

/** A map image whose header claims more than MAX_MAP_PIXELS; nothing was allocated for it. */
export class MapImageTooLargeError extends Error {
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    super(`is ${width} x ${height} pixels, more than the ${MAX_MAP_PIXELS} (4096 x 4096) cavsim loads`);
    this.name = 'MapImageTooLargeError';
  }
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const isPng = (bytes: Uint8Array) => PNG_SIGNATURE.every((b, i) => bytes[i] === b);

/**
 * Decodes PGM (P5 binary, P2 ASCII) or PNG, recognised by content rather than file name. The
 * size in the header is checked against MAX_MAP_PIXELS before anything image-sized is allocated.
 */
export function decodeMapImage(bytes: Uint8Array): GreyImage {
  if (isPgm(bytes)) {
    const header = parsePgmHeader(bytes);
    checkPixelCount(header.width, header.height);
    return { width: header.width, height: header.height, grey: decodePgmRaster(bytes, header) };
  }
  if (isPng(bytes)) {
    const { width, height } = pngSize(bytes);
    checkPixelCount(width, height);
    return decodePng(bytes);
  }
  throw new Error('unsupported image format (expected PGM P5/P2 or PNG); convert it, e.g. `convert map.jpg map.pgm`');
}

function checkPixelCount(width: number, height: number): void {
  if (width * height > MAX_MAP_PIXELS) throw new MapImageTooLargeError(width, height);
}

/** Width and height from the IHDR chunk, which the PNG format puts first. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const ihdr = String.fromCharCode(...bytes.subarray(12, 16));
  if (bytes.length < 24 || ihdr !== 'IHDR')
    throw new Error('PNG has no IHDR header chunk after its signature; the file is cut short or damaged');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  if (width === 0 || height === 0) throw new Error(`PNG header says ${width} x ${height} pixels; a map needs at least one`);
  return { width, height };
}

function decodePng(bytes: Uint8Array): GreyImage {
  const png = pngjs().PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
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
