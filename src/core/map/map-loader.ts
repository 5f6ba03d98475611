import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadMap } from './load-map.js';
import { parseMapMetadata } from './map-metadata.js';
import type { OccupancyGrid } from './occupancy-grid.js';

/** Turns a map YAML path into its grid; every caller that loads maps takes one. */
export type MapLoader = (yamlPath: string) => Promise<OccupancyGrid>;

export const loadMapFromDisk: MapLoader = (yamlPath) => loadMap(yamlPath);

/**
 * A loader that decodes each map once. A sweep validates and runs the same map hundreds of times,
 * and decoding its image was a fifth of a short run. An entry is reused only while the YAML's text
 * and its image file's size and modification time are unchanged; grids are never modified, so
 * runs can share one.
 */
export function cachingMapLoader(load: MapLoader = loadMapFromDisk): MapLoader {
  const cache = new Map<string, { version: string; grid: Promise<OccupancyGrid> }>();
  return (yamlPath) => {
    const key = path.resolve(yamlPath);
    const version = mapVersion(key);
    const hit = cache.get(key);
    if (version !== undefined && hit?.version === version) return hit.grid;
    const grid = load(yamlPath);
    if (version === undefined) return grid;
    cache.set(key, { version, grid });
    grid.catch(() => cache.delete(key));
    return grid;
  };
}

/** The image named by each map YAML text seen: parsing the YAML was most of asking a map's version. */
const imageOfText = new Map<string, string | undefined>();

function imageNamedIn(text: string): string | undefined {
  if (!imageOfText.has(text)) {
    if (imageOfText.size >= 64) imageOfText.clear();
    imageOfText.set(text, parseMapMetadata(text).image);
  }
  return imageOfText.get(text);
}

/** The YAML text plus the image's size and mtime; undefined when either cannot be read (loadMap then says why). */
export function mapVersion(yamlPath: string): string | undefined {
  try {
    const text = readFileSync(yamlPath, 'utf8');
    const image = imageNamedIn(text);
    if (image === undefined) return undefined;
    const s = statSync(path.resolve(path.dirname(yamlPath), image));
    return `${s.size}:${s.mtimeMs}:${text}`;
  } catch {
    return undefined;
  }
}
