import type { OccupancyGrid } from './occupancy-grid.js';

/**
 * A car's footprint: the 4 corners of a rotated rectangle in world coordinates, in order around
 * it, either as pairs or packed [x0, y0, x1, y1, …] (physics' Footprint).
 */
export type FootprintCorners = readonly (readonly [number, number])[] | ArrayLike<number>;

/** Copies the corners into `out` as packed [x0, y0, …, x3, y3]. */
export function packCorners(corners: FootprintCorners, out: Float64Array): Float64Array {
  if (typeof corners[0] === 'number') {
    const packed = corners as ArrayLike<number>;
    for (let i = 0; i < 8; i++) out[i] = packed[i];
  } else {
    const pairs = corners as readonly (readonly [number, number])[];
    for (let k = 0; k < 4; k++) {
      out[2 * k] = pairs[k][0];
      out[2 * k + 1] = pairs[k][1];
    }
  }
  return out;
}

// Scratch space reused across calls: the check runs every physics step for every car.
const packed = new Float64Array(8);
const gx = new Float64Array(4);
const gy = new Float64Array(4);

/**
 * Blocks of 2^BLOCK_BITS x 2^BLOCK_BITS cells, each looked at the first time a footprint reaches it
 * and remembered as free or not. Blocks of 2 x 2: on a generated road (0.5 m cells, a wall row at
 * each edge) a car in an outer lane still lies in blocks without a wall cell.
 */
const BLOCK_BITS = 1;
const UNSEEN = 0;
const FREE = 1;
const OCCUPIED = 2;

interface Blocks {
  columns: number;
  /** UNSEEN, FREE or OCCUPIED per block. */
  state: Uint8Array;
}

/** Each grid's blocks (a map's cells never change while it is in use). */
const blocksOf = new WeakMap<OccupancyGrid, Blocks>();

function blocksFor(grid: OccupancyGrid): Blocks {
  let blocks = blocksOf.get(grid);
  if (!blocks) {
    const columns = (grid.width >> BLOCK_BITS) + 1;
    blocks = { columns, state: new Uint8Array(columns * ((grid.height >> BLOCK_BITS) + 1)) };
    blocksOf.set(grid, blocks);
  }
  return blocks;
}

/** Whether any block holding a cell of rows row0..row1, columns col0..col1 (all in the grid) has an occupied cell. */
function anyBlockOccupied(grid: OccupancyGrid, col0: number, col1: number, row0: number, row1: number): boolean {
  const { columns, state } = blocksFor(grid);
  const c0 = col0 >> BLOCK_BITS;
  const c1 = col1 >> BLOCK_BITS;
  for (let r = row0 >> BLOCK_BITS, r1 = row1 >> BLOCK_BITS; r <= r1; r++) {
    for (let c = c0; c <= c1; c++) {
      const k = r * columns + c;
      if (state[k] === UNSEEN) state[k] = blockHasWall(grid, r, c) ? OCCUPIED : FREE;
      if (state[k] === OCCUPIED) return true;
    }
  }
  return false;
}

function blockHasWall(grid: OccupancyGrid, blockRow: number, blockCol: number): boolean {
  const { width, height, occupied } = grid;
  const rowEnd = Math.min(height, (blockRow + 1) << BLOCK_BITS);
  const colEnd = Math.min(width, (blockCol + 1) << BLOCK_BITS);
  for (let row = blockRow << BLOCK_BITS; row < rowEnd; row++)
    for (let col = blockCol << BLOCK_BITS; col < colEnd; col++) if (occupied[row * width + col] !== 0) return true;
  return false;
}

/**
 * Exact test of whether a rectangle overlaps any occupied cell (cells outside the grid count as
 * occupied). Only cells in the rectangle's bounding box are visited, and an occupied one is
 * confirmed with a separating-axis test, so grazing a wall corner is not mistaken for a hit.
 * Touching without overlap is not a collision.
 */
export function footprintHitsWall(corners: FootprintCorners, grid: OccupancyGrid): boolean {
  packCorners(corners, packed);
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (let k = 0; k < 4; k++) {
    const x = packed[2 * k];
    const y = packed[2 * k + 1];
    gx[k] = grid.gridX(x, y);
    gy[k] = grid.gridY(x, y);
    if (gx[k] < minX) minX = gx[k];
    if (gx[k] > maxX) maxX = gx[k];
    if (gy[k] < minY) minY = gy[k];
    if (gy[k] > maxY) maxY = gy[k];
  }
  // Edge directions of the rectangle: the two axes the separating-axis test needs besides x and y.
  const ax = gx[1] - gx[0];
  const ay = gy[1] - gy[0];
  const bx = gx[2] - gx[1];
  const by = gy[2] - gy[1];
  const aMin = Math.min(ax * gx[0] + ay * gy[0], ax * gx[2] + ay * gy[2]);
  const aMax = Math.max(ax * gx[0] + ay * gy[0], ax * gx[2] + ay * gy[2]);
  const bMin = Math.min(bx * gx[0] + by * gy[0], bx * gx[2] + by * gy[2]);
  const bMax = Math.max(bx * gx[0] + by * gy[0], bx * gx[2] + by * gy[2]);
  // A unit cell projects onto axis (ux, uy) as centre ± (|ux| + |uy|)/2.
  const aHalf = (Math.abs(ax) + Math.abs(ay)) / 2;
  const bHalf = (Math.abs(bx) + Math.abs(by)) / 2;

  const { width, height, occupied } = grid;
  // Beyond the ring of cells around the grid everything blocks, so a rectangle reaching there
  // overlaps a blocking cell. Returning here also bounds the loops below by the grid's size: far
  // coordinates (1e20) would otherwise make them endless, as col++ no longer changes col.
  if (!(minX >= -1 && minY >= -1 && maxX <= width + 1 && maxY <= height + 1)) return true;
  const col0 = Math.floor(minX);
  const col1 = Math.ceil(maxX) - 1;
  const row0 = Math.floor(minY);
  const row1 = Math.ceil(maxY) - 1;
  // Most footprints lie in free road: no occupied cell in their blocks, nothing to test one by one.
  if (col0 >= 0 && row0 >= 0 && col1 < width && row1 < height && !anyBlockOccupied(grid, col0, col1, row0, row1)) {
    return false;
  }
  for (let row = row0; row <= row1; row++) {
    const rowInside = row >= 0 && row < height;
    const cy = row + 0.5;
    for (let col = col0; col <= col1; col++) {
      if (rowInside && col >= 0 && col < width && occupied[row * width + col] === 0) continue;
      const cx = col + 0.5;
      const pa = ax * cx + ay * cy;
      if (pa + aHalf <= aMin || pa - aHalf >= aMax) continue;
      const pb = bx * cx + by * cy;
      if (pb + bHalf <= bMin || pb - bHalf >= bMax) continue;
      return true;
    }
  }
  return false;
}
