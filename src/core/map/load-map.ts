import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { UserInputError } from '../../errors.js';
import { decodeMapImage, type GreyImage, MapImageTooLargeError } from './map-image.js';
import { type MapMetadata, parseMapMetadata } from './map-metadata.js';
import { OccupancyGrid } from './occupancy-grid.js';

/** The one side effect of map loading: reading a file's bytes, refusing (throwing) above maxBytes. */
export type ReadFileBytes = (filePath: string, maxBytes?: number) => Promise<Uint8Array>;

/** A map_server YAML is a few lines; anything this big is some other file. */
const MAX_YAML_BYTES = 1024 * 1024;

/** Above any image within MAX_MAP_PIXELS: 16-bit P5 needs 32 MiB, ASCII P2 about 6 bytes a pixel. */
const MAX_IMAGE_BYTES = 256 * 1024 * 1024;

/** A file refused before reading it; the message continues "<file> …", e.g. "is not a regular file". */
export class FileRefusedError extends Error {}

/**
 * Reads a regular file of at most maxBytes. Devices and FIFOs are refused unread: reading
 * /dev/zero or a pipe nobody writes to would never end.
 */
export const readFileFromDisk: ReadFileBytes = async (filePath, maxBytes = Infinity) => {
  const info = await stat(filePath);
  if (!info.isFile()) throw new FileRefusedError('is not a regular file');
  if (info.size > maxBytes)
    throw new FileRefusedError(`is ${megabytes(info.size)}, more than the ${megabytes(maxBytes)} cavsim reads for it`);
  return readFile(filePath);
};

/** Loads a map_server map (YAML + PGM/PNG). Throws UserInputError listing every problem found. */
export async function loadMap(yamlPath: string, read: ReadFileBytes = readFileFromDisk): Promise<OccupancyGrid> {
  const { grid, problems } = await readMapFile(yamlPath, read);
  if (!grid) {
    throw new UserInputError(`map ${yamlPath} is invalid`, problems, 'see docs/maps.md for the map_server YAML format');
  }
  return grid;
}

/** The same checks as loadMap, returned as `field: message` strings (empty when the map is fine). */
export async function validateMapFile(yamlPath: string, read: ReadFileBytes = readFileFromDisk): Promise<string[]> {
  return (await readMapFile(yamlPath, read)).problems;
}

/** The same checks as loadMap, with the grid when there is no problem: for a caller that checks a map, then uses it. */
export async function readMapFile(
  yamlPath: string,
  read: ReadFileBytes = readFileFromDisk,
): Promise<{ grid?: OccupancyGrid; problems: string[] }> {
  let text: string;
  try {
    text = Buffer.from(await read(yamlPath, MAX_YAML_BYTES)).toString('utf8');
  } catch (err) {
    if (err instanceof FileRefusedError) return { problems: [`yaml: ${yamlPath} ${err.message}; give the map_server YAML file`] };
    return { problems: [`yaml: cannot read ${yamlPath} (${errorText(err)}); check the map path`] };
  }
  // The image is checked even when other fields are wrong, so the user sees everything at once.
  const { metadata, image: imageField, problems } = parseMapMetadata(text);
  let image: GreyImage | undefined;
  if (imageField !== undefined) {
    const imagePath = path.resolve(path.dirname(yamlPath), imageField);
    let bytes: Uint8Array | undefined;
    try {
      bytes = await read(imagePath, MAX_IMAGE_BYTES);
    } catch (err) {
      if (err instanceof FileRefusedError) {
        problems.push(`image: "${imageField}" (resolved to ${imagePath}) ${err.message}; give a PGM or PNG of at most 4096 x 4096 pixels`);
      } else {
        problems.push(
          `image: cannot read "${imageField}" (resolved to ${imagePath}): ${errorText(err)}; the path is relative to the YAML file`,
        );
      }
    }
    if (bytes) {
      try {
        image = decodeMapImage(bytes);
      } catch (err) {
        if (err instanceof MapImageTooLargeError) {
          problems.push(
            `image: "${imageField}" ${err.message}; crop it to the area the cars use, or scale it down and raise resolution ` +
              `to match (e.g. \`convert ${path.basename(imageField)} -resize 50% half.pgm\` and twice the resolution)`,
          );
        } else problems.push(`image: "${imageField}" cannot be decoded: ${errorText(err)}`);
      }
    }
  }

  if (!metadata || !image || problems.length > 0) return { problems };
  return {
    grid: OccupancyGrid.fromImageOrder({
      width: image.width,
      height: image.height,
      resolution: metadata.resolution,
      origin: metadata.origin,
      occupiedTopFirst: occupancyFlags(image, metadata),
    }),
    problems,
  };
}

/**
 * map_server's interpretation of pixels, reduced to a collision flag: a cell is free only when its
 * occupancy probability is below free_thresh; occupied and unknown (and, in scale/raw modes, the
 * in-between shades) all count as occupied.
 */
export function occupancyFlags(image: GreyImage, meta: Pick<MapMetadata, 'negate' | 'freeThresh' | 'mode'>): Uint8Array {
  // A pixel's flag depends on its grey alone (and on its alpha): decided once a grey, not once a pixel.
  const flagOfGrey = new Uint8Array(256);
  for (let v = 0; v < 256; v++) flagOfGrey[v] = occupancyProbability(v, meta) < meta.freeThresh ? 0 : 1;
  const { grey } = image;
  const alpha = meta.mode === 'scale' ? image.alpha : undefined;
  const n = grey.length;
  const flags = new Uint8Array(n);
  if (alpha)
    for (let i = 0; i < n; i++) flags[i] = alpha[i] !== 255 ? 1 : flagOfGrey[grey[i]]; // transparent = unknown
  else for (let i = 0; i < n; i++) flags[i] = flagOfGrey[grey[i]];
  return flags;
}

function occupancyProbability(v: number, meta: Pick<MapMetadata, 'negate' | 'mode'>): number {
  if (meta.mode === 'raw') return v <= 100 ? v / 100 : 1; // raw values above 100 mean unknown
  const shade = v / 255;
  return meta.negate ? shade : 1 - shade;
}

function megabytes(bytes: number): string {
  return `${+(bytes / 1024 ** 2).toPrecision(3)} MB`;
}

function errorText(err: unknown): string {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return err instanceof Error ? err.message : String(err);
}
