import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { UserInputError } from '../errors.js';
import { decodeMapImage, type GreyImage } from './map-image.js';
import { parseMapMetadata, type MapMetadata } from './map-metadata.js';
import { OccupancyGrid } from './occupancy-grid.js';

/** The one side effect of map loading: reading a file's bytes. */
export type ReadFileBytes = (filePath: string) => Promise<Uint8Array>;

export const readFileFromDisk: ReadFileBytes = (filePath) => readFile(filePath);

/** Loads a map_server map (YAML + PGM/PNG). Throws UserInputError listing every problem found. */
export async function loadMap(yamlPath: string, read: ReadFileBytes = readFileFromDisk): Promise<OccupancyGrid> {
  const { grid, problems } = await readMap(yamlPath, read);
  if (!grid) {
    throw new UserInputError(`map ${yamlPath} is invalid`, problems, 'see docs/maps.md for the map_server YAML format');
  }
  return grid;
}

/** The same checks as loadMap, returned as `field: message` strings (empty when the map is fine). */
export async function validateMapFile(yamlPath: string, read: ReadFileBytes = readFileFromDisk): Promise<string[]> {
  return (await readMap(yamlPath, read)).problems;
}

async function readMap(yamlPath: string, read: ReadFileBytes): Promise<{ grid?: OccupancyGrid; problems: string[] }> {
  let text: string;
  try {
    text = Buffer.from(await read(yamlPath)).toString('utf8');
  } catch (err) {
    return { problems: [`yaml: cannot read ${yamlPath} (${errorText(err)}); check the map path`] };
  }
  // The image is checked even when other fields are wrong, so the user sees everything at once.
  const { metadata, image: imageField, problems } = parseMapMetadata(text);
  let image: GreyImage | undefined;
  if (imageField !== undefined) {
    const imagePath = path.resolve(path.dirname(yamlPath), imageField);
    let bytes: Uint8Array | undefined;
    try {
      bytes = await read(imagePath);
    } catch (err) {
      problems.push(`image: cannot read "${imageField}" (resolved to ${imagePath}): ${errorText(err)}; the path is relative to the YAML file`);
    }
    if (bytes) {
      try {
        image = decodeMapImage(bytes);
      } catch (err) {
        problems.push(`image: "${imageField}" cannot be decoded: ${errorText(err)}`);
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
  const flags = new Uint8Array(image.grey.length);
  for (let i = 0; i < flags.length; i++) {
    const v = image.grey[i];
    let p: number;
    if (meta.mode === 'raw') {
      p = v <= 100 ? v / 100 : 1; // raw values above 100 mean unknown
    } else {
      const shade = v / 255;
      p = meta.negate ? shade : 1 - shade;
      if (meta.mode === 'scale' && image.alpha && image.alpha[i] !== 255) p = 1; // transparent = unknown
    }
    flags[i] = p < meta.freeThresh ? 0 : 1;
  }
  return flags;
}

function errorText(err: unknown): string {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return err instanceof Error ? err.message : String(err);
}
