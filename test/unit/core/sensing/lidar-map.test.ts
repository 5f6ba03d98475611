import { describe, expect, it } from 'vitest';
import type { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { CLEARANCE_OF_CODE, clearanceCode, OCCUPIED_CODE } from '../../../../src/core/sensing/clearance-code.js';
import { cellsApart, prepareLidarMap, RUN_CAP, tiledIndex } from '../../../../src/core/sensing/lidar-map.js';
import { gridFrom } from '../map/ascii-grid.js';

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** Padded occupancy: the ring around the grid counts as occupied. */
function occupiedPadded(grid: OccupancyGrid, col: number, row: number): boolean {
  return col < 1 || row < 1 || col > grid.width || row > grid.height || grid.occupied[(row - 1) * grid.width + col - 1] !== 0;
}

/** Brute force: the least distance between padded cell (col, row) and any occupied padded cell, nearest points to nearest points [cells]. */
function trueClearance(grid: OccupancyGrid, col: number, row: number): number {
  let best = Infinity;
  for (let r = 0; r <= grid.height + 1; r++) {
    for (let c = 0; c <= grid.width + 1; c++) {
      if (occupiedPadded(grid, c, r))
        best = Math.min(best, Math.hypot(Math.max(Math.abs(c - col) - 1, 0), Math.max(Math.abs(r - row) - 1, 0)));
    }
  }
  return best;
}

const random = seeded(7);
const clutter = gridFrom(37, 23, 0.05, { x: 0, y: 0, yaw: 0 }, () => random() < 0.06);

describe('clearance codes', () => {
  it('never read as more than the clearance coded, and as little less as the code steps allow', () => {
    const rand = seeded(3);
    for (let n = 0; n < 20000; n++) {
      const cells = n < 200 ? n / 8 : rand() ** 3 * 5000;
      const code = clearanceCode(cells);
      expect(code).toBeLessThan(OCCUPIED_CODE);
      expect(CLEARANCE_OF_CODE[code]).toBeLessThanOrEqual(cells);
      if (code + 1 < OCCUPIED_CODE) expect(CLEARANCE_OF_CODE[code + 1]).toBeGreaterThan(cells);
    }
    expect(CLEARANCE_OF_CODE[OCCUPIED_CODE]).toBe(-1);
  });
});

describe('prepareLidarMap', () => {
  it('cellsApart is the distance between cells, nearest points to nearest points, the ring counting as occupied', () => {
    const apart = cellsApart(clutter);
    for (let row = 0; row < clutter.height; row++) {
      for (let col = 0; col < clutter.width; col++) {
        if (clutter.occupied[row * clutter.width + col]) continue;
        expect(apart[row * clutter.width + col]).toBeCloseTo(trueClearance(clutter, col + 1, row + 1), 5);
      }
    }
  });

  it('stores a clearance that never exceeds the true one, and marks occupied cells and the ring', () => {
    const map = prepareLidarMap(clutter);
    for (let row = 0; row <= clutter.height + 1; row++) {
      for (let col = 0; col <= clutter.width + 1; col++) {
        const code = map.clearance[tiledIndex(col, row, map.tilesWide)];
        if (occupiedPadded(clutter, col, row)) {
          expect(code).toBe(OCCUPIED_CODE);
        } else {
          const truth = trueClearance(clutter, col, row);
          expect(CLEARANCE_OF_CODE[code]).toBeLessThanOrEqual(truth);
          expect(CLEARANCE_OF_CODE[code]).toBeGreaterThan(truth * 0.97 - 0.25);
        }
      }
    }
  });

  it('counts runs to the next occupied cell in each direction, capped at RUN_CAP', () => {
    // Rows long enough for capped runs; one wall cell per row at a random column.
    const rand = seeded(11);
    const walls = Array.from({ length: 9 }, () => Math.floor(rand() * 700));
    const grid = gridFrom(700, 9, 0.05, { x: 0, y: 0, yaw: 0 }, (col, row) => col === walls[row] || (col === 350 && row === 4));
    const map = prepareLidarMap(grid);
    const runTo = (col: number, row: number, dc: number, dr: number) => {
      let n = 0;
      while (!occupiedPadded(grid, col + n * dc, row + n * dr)) n++;
      return Math.min(n, RUN_CAP);
    };
    for (let row = 0; row <= grid.height + 1; row++) {
      for (let col = 0; col <= grid.width + 1; col++) {
        const k = tiledIndex(col, row, map.tilesWide);
        expect([map.runRight[k], map.runLeft[k], map.runUp[k], map.runDown[k]]).toEqual([
          runTo(col, row, 1, 0),
          runTo(col, row, -1, 0),
          runTo(col, row, 0, 1),
          runTo(col, row, 0, -1),
        ]);
      }
    }
  });

  it('places every padded cell at its own index inside the tables', () => {
    const map = prepareLidarMap(clutter);
    const seen = new Set<number>();
    for (let row = 0; row <= clutter.height + 1; row++) {
      for (let col = 0; col <= clutter.width + 1; col++) {
        const k = tiledIndex(col, row, map.tilesWide);
        expect(k).toBeGreaterThanOrEqual(0);
        expect(k).toBeLessThan(map.clearance.length);
        seen.add(k);
      }
    }
    expect(seen.size).toBe((clutter.width + 2) * (clutter.height + 2));
  });
});
