import { describe, expect, it } from 'vitest';
import { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { asciiGrid } from './ascii-grid.js';

describe('OccupancyGrid', () => {
  it('puts image row 0 at the top of the map (max y)', () => {
    const grid = asciiGrid(['#..', '...'], 1, { x: 0, y: 0, yaw: 0 });
    expect(grid.isOccupiedCell(0, 1)).toBe(true); // top-left pixel
    expect(grid.isOccupiedCell(0, 0)).toBe(false);
    expect(grid.isOccupiedWorld(0.5, 1.5)).toBe(true);
    expect(grid.isOccupiedWorld(0.5, 0.5)).toBe(false);
  });

  it('converts world to cell and back with origin offset and resolution', () => {
    const grid = new OccupancyGrid({
      width: 10,
      height: 4,
      resolution: 0.05,
      origin: { x: -0.25, y: -0.1, yaw: 0 },
      occupied: new Uint8Array(40),
    });
    expect(grid.worldToCell(-0.25, -0.1)).toEqual({ col: 0, row: 0 });
    expect(grid.worldToCell(0, 0)).toEqual({ col: 5, row: 2 });
    expect(grid.worldToCell(0.224, 0.049)).toEqual({ col: 9, row: 2 });
    const c = grid.cellToWorld(5, 2);
    expect(c.x).toBeCloseTo(0.025, 12);
    expect(c.y).toBeCloseTo(0.025, 12);
  });

  it('applies the origin yaw (map rotated in the world)', () => {
    const grid = new OccupancyGrid({
      width: 4,
      height: 2,
      resolution: 1,
      origin: { x: 10, y: 0, yaw: Math.PI / 2 },
      occupied: new Uint8Array(8),
    });
    // map +x points along world +y; map +y along world -x
    expect(grid.worldToCell(10.0 - 1.5, 3.5)).toEqual({ col: 3, row: 1 });
    const c = grid.cellToWorld(3, 1);
    expect(c.x).toBeCloseTo(8.5, 12);
    expect(c.y).toBeCloseTo(3.5, 12);
  });

  it('treats everything outside the map as occupied', () => {
    const grid = asciiGrid(['..', '..']);
    expect(grid.isOccupiedWorld(1, 1)).toBe(false);
    expect(grid.isOccupiedWorld(-0.01, 1)).toBe(true);
    expect(grid.isOccupiedWorld(1, 2.0)).toBe(true);
    expect(grid.isOccupiedCell(2, 0)).toBe(true);
  });

  it('rejects inconsistent sizes', () => {
    expect(
      () => new OccupancyGrid({ width: 2, height: 2, resolution: 1, origin: { x: 0, y: 0, yaw: 0 }, occupied: new Uint8Array(3) }),
    ).toThrow(/expected 2x2/);
    expect(
      () => new OccupancyGrid({ width: 2, height: 2, resolution: 0, origin: { x: 0, y: 0, yaw: 0 }, occupied: new Uint8Array(4) }),
    ).toThrow(/resolution/);
  });
});
