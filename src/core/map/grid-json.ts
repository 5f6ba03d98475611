import { OccupancyGrid } from './occupancy-grid.js';

/**
 * An occupancy grid as JSON: how the emulated runtime hands a vehicle container the map's walls
 * (its CPM leaves them out of the objects it reports) without the YAML parser or the image decoder.
 * `occupied`: the row-major flags (row 0 the bottom), one byte each, base64.
 */
export interface GridJson {
  schema: 'cavsim.grid/1';
  width: number;
  height: number;
  resolution: number;
  origin: { x: number; y: number; yaw: number };
  occupied: string;
}

export function gridToJson(grid: OccupancyGrid): GridJson {
  const { width, height, resolution, origin } = grid;
  return {
    schema: 'cavsim.grid/1',
    width,
    height,
    resolution,
    origin: { ...origin },
    occupied: Buffer.from(grid.occupied).toString('base64'),
  };
}

/** The grid a GridJson describes; a RangeError naming what is wrong with anything else. */
export function gridFromJson(value: unknown): OccupancyGrid {
  const v = (value ?? {}) as Partial<Record<keyof GridJson, unknown>>;
  if (typeof value !== 'object' || value === null || v.schema !== 'cavsim.grid/1') throw new RangeError('not a cavsim.grid/1 object');
  const o = (v.origin ?? {}) as Record<string, unknown>;
  const numbers = { width: v.width, height: v.height, resolution: v.resolution, 'origin.x': o.x, 'origin.y': o.y, 'origin.yaw': o.yaw };
  for (const [field, n] of Object.entries(numbers))
    if (typeof n !== 'number' || !Number.isFinite(n)) throw new RangeError(`${field} must be a finite number`);
  if (typeof v.occupied !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v.occupied)) throw new RangeError('occupied must be base64');
  const occupied = new Uint8Array(Buffer.from(v.occupied, 'base64'));
  return new OccupancyGrid({
    width: v.width as number,
    height: v.height as number,
    resolution: v.resolution as number,
    origin: { x: o.x as number, y: o.y as number, yaw: o.yaw as number },
    occupied,
  });
}
