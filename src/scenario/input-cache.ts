import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseNumericCsv } from '../core/control/waypoints.js';
import { readMapFile } from '../core/map/load-map.js';
import { mapVersion } from '../core/map/map-loader.js';
import type { OccupancyGrid } from '../core/map/occupancy-grid.js';
import { type InputFileResult, readInputFile } from '../util/read-input-file.js';
import { YamlSource } from './yaml-source.js';

export interface MapRead {
  grid?: OccupancyGrid;
  problems: string[];
}

export interface CsvRead {
  read: InputFileResult;
  rows: Record<string, number>[];
  errors: string[];
}

/** How a scenario's map and CSV files are read and parsed while it is loaded. */
export interface ScenarioInputs {
  readMap(yamlPath: string): Promise<MapRead>;
  readCsv(file: string, columns: readonly string[], maxBytes: number): Promise<CsvRead>;
  /** The scenario file's text as YAML, in a copy the caller may set overrides in. */
  parseScenario(file: string, text: string): ParsedScenario;
}

type ParsedScenario = ReturnType<typeof YamlSource.parse>;

const readCsvFromDisk = (file: string, columns: readonly string[], maxBytes: number): Promise<CsvRead> =>
  readInputFile(file, maxBytes).then((read) => ({
    read,
    ...(read.ok ? parseNumericCsv(read.text, [...columns]) : { rows: [], errors: [] }),
  }));

/** Every load reads its files afresh: what a single command does. */
export const uncachedInputs: ScenarioInputs = {
  readMap: (p) => readMapFile(p),
  readCsv: readCsvFromDisk,
  parseScenario: (file, text) => YamlSource.parse(file, text),
};

/**
 * Files read once for many loads of a scenario (a sweep loads it for every value and every run:
 * decoding the map and parsing the waypoints were a fifth of a short run). An entry is reused only
 * while its file's size and modification time (the map: its YAML text too) are unchanged; what is
 * handed out is never modified by its users (rows are copied per car).
 */
export function cachingInputs(): ScenarioInputs {
  const maps = new Map<string, { version: string; read: Promise<MapRead> }>();
  const csvs = new Map<string, { version: string; read: Promise<CsvRead> }>();
  const scenarios = new Map<string, { text: string; parsed: ParsedScenario }>();
  return {
    parseScenario(file, text) {
      let hit = scenarios.get(file);
      if (hit?.text !== text) {
        hit = { text, parsed: YamlSource.parse(file, text) };
        scenarios.set(file, hit);
      }
      return hit.parsed.source ? { source: hit.parsed.source.copy(), errors: [] } : hit.parsed;
    },
    readMap(yamlPath) {
      const key = resolve(yamlPath);
      return cached(maps, key, mapVersion(key), () => readMapFile(key));
    },
    readCsv(file, columns, maxBytes) {
      const key = `${columns.join(',')} ${maxBytes} ${resolve(file)}`;
      return cached(csvs, key, fileVersion(file), () => readCsvFromDisk(file, columns, maxBytes));
    },
  };
}

function cached<T>(
  cache: Map<string, { version: string; read: Promise<T> }>,
  key: string,
  version: string | undefined,
  read: () => Promise<T>,
): Promise<T> {
  const hit = cache.get(key);
  if (version !== undefined && hit?.version === version) return hit.read;
  const fresh = read();
  if (version !== undefined) cache.set(key, { version, read: fresh });
  return fresh;
}

function fileVersion(file: string): string | undefined {
  try {
    const s = statSync(file);
    return s.isFile() ? `${s.size}:${s.mtimeMs}` : undefined;
  } catch {
    return undefined;
  }
}
