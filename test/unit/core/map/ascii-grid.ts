import { type MapOrigin, OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';

/** A grid drawn as text: first line = top row, '#' occupied, anything else free. */
export function asciiGrid(rows: string[], resolution = 1, origin: MapOrigin = { x: 0, y: 0, yaw: 0 }): OccupancyGrid {
  const height = rows.length;
  const width = rows[0].length;
  const flags = new Uint8Array(width * height);
  rows.forEach((line, r) => {
    if (line.length !== width) throw new Error(`row ${r} has ${line.length} columns, expected ${width}`);
    for (let c = 0; c < width; c++) flags[r * width + c] = line[c] === '#' ? 1 : 0;
  });
  return OccupancyGrid.fromImageOrder({ width, height, resolution, origin, occupiedTopFirst: flags });
}

/** A grid of w x h cells, all free except where `occupied(col, row)` (row 0 = bottom). */
export function gridFrom(
  width: number,
  height: number,
  resolution: number,
  origin: MapOrigin,
  occupied: (col: number, row: number) => boolean,
): OccupancyGrid {
  const flags = new Uint8Array(width * height);
  for (let row = 0; row < height; row++) for (let col = 0; col < width; col++) flags[row * width + col] = occupied(col, row) ? 1 : 0;
  return new OccupancyGrid({ width, height, resolution, origin, occupied: flags });
}
