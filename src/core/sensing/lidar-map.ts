import type { OccupancyGrid } from '../map/occupancy-grid.js';
import { clearanceCode, OCCUPIED_CODE } from './clearance-code.js';
import { precomputeDistanceField } from './distance-field.js';

/** Tables are stored in square tiles of TILE × TILE cells, 64 bytes a tile (see tiledIndex, which wall-march.ts inlines). */
export const TILE_SHIFT = 3;
const TILE = 1 << TILE_SHIFT;
/** Runs are counted up to this; a capped run only says that many cells are free. */
export const RUN_CAP = 0xff;

/**
 * Everything the lidar precomputes from a map, shareable between all the cars on it. Tables are
 * padded with one ring of occupied cells, so a ray stops at the map edge without bounds checks;
 * padded cell (col+1, row+1) is grid cell (col, row). They hold a byte per cell each, in tiles, so
 * the cells a ray visits near each other share cache lines: 5 bytes per padded cell in all, plus 4
 * per grid cell for the distance field.
 */
export interface LidarMap {
  readonly grid: OccupancyGrid;
  /** precomputeDistanceField(grid), metres. */
  readonly distanceField: Float32Array;
  readonly paddedWidth: number;
  /** Tiles per row of tiles, for tiledIndex. */
  readonly tilesWide: number;
  /**
   * Per padded cell (tiledIndex), coded as in clearance-code.ts: how far (in cells) a ray may
   * advance from anywhere in the cell without entering an occupied cell (cellsApart), rounded
   * down; OCCUPIED_CODE for occupied cells.
   */
  readonly clearance: Uint8Array;
  /** Free cells from this one (inclusive) to the next occupied one along +x, −x, +y, −y, at most RUN_CAP. */
  readonly runRight: Uint8Array;
  readonly runLeft: Uint8Array;
  readonly runUp: Uint8Array;
  readonly runDown: Uint8Array;
}

/** Where padded cell (col, row) is in the tables. */
export function tiledIndex(col: number, row: number, tilesWide: number): number {
  return (
    (((row >> TILE_SHIFT) * tilesWide + (col >> TILE_SHIFT)) << (2 * TILE_SHIFT)) | ((row & (TILE - 1)) << TILE_SHIFT) | (col & (TILE - 1))
  );
}

/**
 * Per grid cell, the distance [cells] between it and the nearest occupied cell (or the ring outside
 * the grid), nearest points to nearest points: cells (a, b) apart are max(|a|−1, 0), max(|b|−1, 0)
 * apart along x and y, so this is the centre distance to the nearest cell in or next to (8-way) an
 * occupied one.
 */
export function cellsApart(grid: OccupancyGrid): Float32Array {
  const { width: w, height: h, occupied } = grid;
  const nearOccupied = new Uint8Array(w * h);
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      let near = row === 0 || col === 0 || row === h - 1 || col === w - 1 ? 1 : 0;
      for (let r = row - 1; r <= row + 1 && !near; r++) {
        for (let c = col - 1; c <= col + 1; c++) near |= occupied[r * w + c];
      }
      nearOccupied[row * w + col] = near;
    }
  }
  return precomputeDistanceField({ width: w, height: h, occupied: nearOccupied, resolution: 1 });
}

export function prepareLidarMap(grid: OccupancyGrid, distanceField = precomputeDistanceField(grid)): LidarMap {
  if (distanceField.length !== grid.width * grid.height) throw new RangeError('distanceField does not match the grid size');
  const { width: w, height: h, occupied } = grid;
  const pw = w + 2;
  const ph = h + 2;
  const tilesWide = Math.ceil(pw / TILE);
  const size = tilesWide * Math.ceil(ph / TILE) * TILE * TILE;
  const at = (col: number, row: number) => tiledIndex(col, row, tilesWide);
  const clearance = new Uint8Array(size).fill(OCCUPIED_CODE);
  const apart = cellsApart(grid);
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      const k = row * w + col;
      // Sparing the float32 rounding of the distance.
      if (occupied[k] === 0) clearance[at(col + 1, row + 1)] = clearanceCode(apart[k] * (1 - 1e-6));
    }
  }
  const runRight = new Uint8Array(size);
  const runLeft = new Uint8Array(size);
  const runUp = new Uint8Array(size);
  const runDown = new Uint8Array(size);
  // A run is its neighbour's plus one; the ring is occupied, so each starts from a 0 at the border.
  const runFrom = (runs: Uint8Array, k: number, next: number) => {
    runs[k] = clearance[k] === OCCUPIED_CODE ? 0 : Math.min(RUN_CAP, runs[next] + 1);
  };
  for (let row = 1; row <= h; row++) {
    for (let col = w; col >= 1; col--) runFrom(runRight, at(col, row), at(col + 1, row));
    for (let col = 1; col <= w; col++) runFrom(runLeft, at(col, row), at(col - 1, row));
  }
  for (let col = 1; col <= w; col++) {
    for (let row = h; row >= 1; row--) runFrom(runUp, at(col, row), at(col, row + 1));
    for (let row = 1; row <= h; row++) runFrom(runDown, at(col, row), at(col, row - 1));
  }
  return { grid, distanceField, paddedWidth: pw, tilesWide, clearance, runRight, runLeft, runUp, runDown };
}
