import { describe, expect, it } from 'vitest';
import { laneCentreY, ROAD_MAP_MARGIN_M, roadMapSize, straightRoadGrid } from '../../../../src/core/map/straight-road.js';
import { footprintHitsWall } from '../../../../src/core/map/wall-collision.js';
import { footprintCorners } from '../../../../src/core/physics/footprint.js';
import { Lidar } from '../../../../src/core/sensing/lidar.js';

const road = { length: 2000, lanes: 3, laneWidth: 3.5, runOut: 125 };
const car = { length: 4.508, width: 1.61 };

describe('the straight road map', () => {
  it('is a few hundred thousand cells for kilometres of road, with its edges on cell borders', () => {
    const grid = straightRoadGrid(road);
    // 10.5 m wide in 0.5 m cells; 2000 m of road, 125 m of run-out and a margin at each end
    expect(grid.resolution).toBe(0.5);
    expect(grid.width).toBe(Math.ceil((2000 + 125 + 2 * ROAD_MAP_MARGIN_M) / 0.5) + 2);
    expect(grid.height).toBe(21 + 2);
    expect(grid.width * grid.height).toBeLessThan(200_000);
    expect(roadMapSize(road)).toEqual({ width: grid.width, height: grid.height, resolution: 0.5 });
    // just inside the edges is free, just outside is wall
    expect(grid.isOccupiedWorld(1000, 5.24)).toBe(false);
    expect(grid.isOccupiedWorld(1000, 5.26)).toBe(true);
    expect(grid.isOccupiedWorld(1000, -5.24)).toBe(false);
    expect(grid.isOccupiedWorld(1000, -5.26)).toBe(true);
    expect(grid.isOccupiedWorld(-ROAD_MAP_MARGIN_M + 0.1, 0)).toBe(false);
    expect(grid.isOccupiedWorld(-ROAD_MAP_MARGIN_M - 0.1, 0)).toBe(true);
    expect(grid.isOccupiedWorld(2000 + 125 + ROAD_MAP_MARGIN_M - 0.1, 0)).toBe(false);
  });

  it('takes a cell that divides a road width that 0.5 m does not', () => {
    const grid = straightRoadGrid({ ...road, lanes: 2, laneWidth: 3.7 });
    expect(grid.resolution).toBeCloseTo(7.4 / 15, 12);
    expect(grid.isOccupiedWorld(10, 3.69)).toBe(false);
    expect(grid.isOccupiedWorld(10, 3.71)).toBe(true);
  });

  it('a car on any lane centre is clear of the walls; one over the edge hits them', () => {
    const grid = straightRoadGrid(road);
    for (let lane = 0; lane < road.lanes; lane++) {
      for (const x of [0, 1000, 2000 + 125]) {
        expect(footprintHitsWall(footprintCorners({ x, y: laneCentreY(road, lane), yaw: 0 }, car), grid)).toBe(false);
      }
    }
    expect(laneCentreY(road, 0)).toBe(-3.5);
    expect(footprintHitsWall(footprintCorners({ x: 500, y: 4.6, yaw: 0 }, car), grid)).toBe(true);
  });

  it('a lidar on it sees the edges at their distance', () => {
    const grid = straightRoadGrid(road);
    const lidar = new Lidar(grid, { beams: 3, fov: Math.PI, rangeMax: 30, noiseStd: 0, seed: 1 });
    // beams right, ahead and left of a car in the middle lane: the edges 5.25 m away, nothing ahead
    const scan = lidar.scan({ x: 1000, y: 0, yaw: 0 });
    expect(scan[0]).toBeCloseTo(5.25, 1);
    expect(scan[1]).toBeCloseTo(30, 6);
    expect(scan[2]).toBeCloseTo(5.25, 1);
  });
});
