import { requireCjs } from '../../util/require-cjs.js';

const { parseDocument } = requireCjs('yaml') as typeof import('yaml');

import type { MapOrigin } from './occupancy-grid.js';

export type MapMode = 'trinary' | 'scale' | 'raw';

/** The fields of a map_server YAML file, after validation and defaults. */
export interface MapMetadata {
  image: string; // as written, relative to the YAML file unless absolute
  resolution: number;
  origin: MapOrigin;
  negate: boolean;
  occupiedThresh: number;
  freeThresh: number;
  mode: MapMode;
}

const KNOWN_KEYS = ['image', 'resolution', 'origin', 'negate', 'occupied_thresh', 'free_thresh', 'mode'] as const;
const MODES: readonly MapMode[] = ['trinary', 'scale', 'raw'];

/**
 * Plausible metres per cell: a millimetre to 10 m. Finer cells put a car across millions of them
 * (the wall check visits each); coarser ones cannot hold a wall.
 */
export const RESOLUTION_RANGE = { min: 0.001, max: 10 } as const;

/** The origin's x and y lie within 1000 km: far enough for any local map, near enough for exact cell arithmetic. */
export const MAX_ORIGIN_OFFSET = 1e6;

/** Defaults of map_saver / the usual ROS maps, used when a key is absent. */
export const MAP_DEFAULTS = { negate: false, occupiedThresh: 0.65, freeThresh: 0.196, mode: 'trinary' as MapMode };

/**
 * Validates the text of a map_server YAML file. Every problem is reported, each as
 * `field: what is wrong; how to fix it`.
 */
export function parseMapMetadata(text: string): { metadata?: MapMetadata; image?: string; problems: string[] } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    return { problems: doc.errors.map((e) => `yaml: ${e.message.split('\n')[0]}; fix the YAML syntax`) };
  }
  const raw: unknown = doc.toJS();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { problems: ['yaml: the file must be a mapping with keys image, resolution, origin, …'] };
  }
  const obj = raw as Record<string, unknown>;
  const problems: string[] = [];

  // A file that is not a map at all (a path pointing elsewhere, even /etc/shadow under sudo) is
  // said to be so, and nothing of its content is echoed back.
  if (!Object.keys(obj).some((key) => (KNOWN_KEYS as readonly string[]).includes(key))) {
    return {
      problems: [`yaml: not a map_server map file: it has none of ${KNOWN_KEYS.join(', ')}; point map at a map YAML (docs/maps.md)`],
    };
  }
  for (const key of Object.keys(obj)) {
    if (!(KNOWN_KEYS as readonly string[]).includes(key)) {
      const shown = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(key) ? key : 'a key that is not a map field';
      problems.push(`${shown}: unknown key; allowed keys are ${KNOWN_KEYS.join(', ')}`);
    }
  }

  let image = '';
  if (obj.image === undefined) problems.push('image: missing; give the path of the PGM or PNG file, relative to this YAML');
  else if (typeof obj.image !== 'string' || obj.image.trim() === '') {
    problems.push(`image: must be a file path string, got ${show(obj.image)}`);
  } else image = obj.image;

  let resolution = NaN;
  if (obj.resolution === undefined) problems.push('resolution: missing; give metres per cell, e.g. 0.05');
  else if (typeof obj.resolution !== 'number' || !Number.isFinite(obj.resolution) || obj.resolution <= 0) {
    problems.push(`resolution: must be a positive number of metres per cell (e.g. 0.05), got ${show(obj.resolution)}`);
  } else if (obj.resolution < RESOLUTION_RANGE.min || obj.resolution > RESOLUTION_RANGE.max) {
    problems.push(
      `resolution: ${obj.resolution} m per cell is out of range; use ${RESOLUTION_RANGE.min} to ${RESOLUTION_RANGE.max} (ROS maps use about 0.05)`,
    );
  } else resolution = obj.resolution;

  let origin: MapOrigin = { x: 0, y: 0, yaw: 0 };
  if (obj.origin === undefined) problems.push('origin: missing; give [x, y, yaw] of the lower-left pixel, e.g. [-10.0, -5.0, 0.0]');
  else if (!Array.isArray(obj.origin) || obj.origin.length !== 3) {
    const got = Array.isArray(obj.origin) ? `${obj.origin.length} values` : show(obj.origin);
    problems.push(`origin: must be [x, y, yaw] (3 numbers), got ${got}`);
  } else if (!obj.origin.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    problems.push(`origin: all of [x, y, yaw] must be finite numbers, got ${show(obj.origin)}`);
  } else if (Math.abs(obj.origin[0]) > MAX_ORIGIN_OFFSET || Math.abs(obj.origin[1]) > MAX_ORIGIN_OFFSET) {
    problems.push(`origin: x and y must lie within ±${MAX_ORIGIN_OFFSET} m, got ${show(obj.origin)}; use coordinates local to the map`);
  } else {
    const [x, y, yaw] = obj.origin as number[];
    origin = { x, y, yaw };
  }

  let negate = MAP_DEFAULTS.negate;
  if (obj.negate !== undefined) {
    if (obj.negate === 0 || obj.negate === 1 || typeof obj.negate === 'boolean') negate = Boolean(obj.negate);
    else problems.push(`negate: must be 0 or 1, got ${show(obj.negate)}`);
  }

  const occupiedThresh = threshold(obj, 'occupied_thresh', MAP_DEFAULTS.occupiedThresh, problems);
  const freeThresh = threshold(obj, 'free_thresh', MAP_DEFAULTS.freeThresh, problems);
  if (Number.isFinite(occupiedThresh) && Number.isFinite(freeThresh) && freeThresh >= occupiedThresh) {
    problems.push(
      `free_thresh: must be below occupied_thresh (${freeThresh} >= ${occupiedThresh}); e.g. free_thresh: 0.196, occupied_thresh: 0.65`,
    );
  }

  let mode = MAP_DEFAULTS.mode;
  if (obj.mode !== undefined) {
    if (typeof obj.mode === 'string' && (MODES as readonly string[]).includes(obj.mode)) mode = obj.mode as MapMode;
    else problems.push(`mode: must be one of ${MODES.join(', ')}, got ${show(obj.mode)}`);
  }

  // The image path is returned even when other fields are wrong, so its file can be checked too.
  if (problems.length > 0) return { image: image || undefined, problems };
  return { metadata: { image, resolution, origin, negate, occupiedThresh, freeThresh, mode }, image, problems };
}

function threshold(obj: Record<string, unknown>, key: string, fallback: number, problems: string[]): number {
  const v = obj[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
    problems.push(`${key}: must be a number within [0, 1], got ${show(v)}`);
    return NaN;
  }
  return v;
}

/** A value as YAML would write it; JSON would print .nan and .inf as null. */
function show(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) {
    return Number.isNaN(v) ? '.nan (not a number)' : `${v < 0 ? '-' : ''}.inf (infinite)`;
  }
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  return JSON.stringify(v) ?? String(v);
}
