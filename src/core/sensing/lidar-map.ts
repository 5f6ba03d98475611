import type { OccupancyGrid } from '../map/occupancy-grid.js';
import { precomputeDistanceField } from './distance-field.js';

/**
 * Everything the lidar precomputes from a map, shareable between all the cars on it. Tables are
 * padded with one ring of occupied cells, so a ray stops at the map edge without bounds checks;
 * padded cell (col+1, row+1) is grid cell (col, row).
 */
export interface LidarMap {
  readonly grid: OccupancyGrid;
  /** precomputeDistanceField(grid), metres. */
  readonly distanceField: Float32Array;
  readonly paddedWidth: number;
  /**
   * Per padded cell: how far (in cells) a ray may advance from anywhere in the cell without
   * entering an occupied cell, i.e. centre distance − √2, at least 0; −1 for occupied cells.
   */
  readonly clearance: Float32Array;
  /** Free cells from this one (inclusive) to the next occupied one along +x, −x, +y, −y. */
  readonly runRight: Uint16Array;
  readonly runLeft: Uint16Array;
  readonly runUp: Uint16Array;
  readonly runDown: Uint16Array;
}

const RUN_CAP = 0xffff;

export function prepareLidarMap(grid: OccupancyGrid, distanceField = precomputeDistanceField(grid)): LidarMap {
  if (distanceField.length !== grid.width * grid.height) throw new RangeError('distanceField does not match the grid size');
  const { width: w, height: h, occupied, resolution } = grid;
  const pw = w + 2;
  const ph = h + 2;
  const clearance = new Float32Array(pw * ph).fill(-1);
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      const k = row * w + col;
      if (occupied[k] === 0) clearance[(row + 1) * pw + col + 1] = Math.max(0, distanceField[k] / resolution - Math.SQRT2);
    }
  }
  const runRight = new Uint16Array(pw * ph);
  const runLeft = new Uint16Array(pw * ph);
  const runUp = new Uint16Array(pw * ph);
  const runDown = new Uint16Array(pw * ph);
  // The ring is occupied, so every run below starts from a 0 at the border.
  for (let row = 1; row <= h; row++) {
    const base = row * pw;
    for (let col = w; col >= 1; col--) {
      const k = base + col;
      runRight[k] = clearance[k] < 0 ? 0 : Math.min(RUN_CAP, runRight[k + 1] + 1);
    }
    for (let col = 1; col <= w; col++) {
      const k = base + col;
      runLeft[k] = clearance[k] < 0 ? 0 : Math.min(RUN_CAP, runLeft[k - 1] + 1);
    }
  }
  for (let col = 1; col <= w; col++) {
    for (let row = h; row >= 1; row--) {
      const k = row * pw + col;
      runUp[k] = clearance[k] < 0 ? 0 : Math.min(RUN_CAP, runUp[k + pw] + 1);
    }
    for (let row = 1; row <= h; row++) {
      const k = row * pw + col;
      runDown[k] = clearance[k] < 0 ? 0 : Math.min(RUN_CAP, runDown[k - pw] + 1);
    }
  }
  return { grid, distanceField, paddedWidth: pw, clearance, runRight, runLeft, runUp, runDown };
}
