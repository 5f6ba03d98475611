import { OccupancyGrid } from './occupancy-grid.js';

/**
 * A straight road along +x, its lanes side by side across y and centred on y = 0: lane 0 is the
 * lowest y (the rightmost lane, driving towards +x). Cars stand on [0, length]; `runOut` more
 * metres of road lie beyond it, where moving cars drive during a run.
 */
export interface StraightRoad {
  length: number; // [m]
  lanes: number;
  laneWidth: number; // [m]
  runOut: number; // [m]
}

/** Free road behind x = 0 and beyond the run-out: a car standing at either end is on free ground, up to the 30 m a car may be long. */
export const ROAD_MAP_MARGIN_M = 20;

/** The coarsest cell of a generated road map [m]: walls only at the road's edges need no finer grid. */
export const ROAD_MAP_MAX_RESOLUTION_M = 0.5;

export const roadWidth = (road: Pick<StraightRoad, 'lanes' | 'laneWidth'>) => road.lanes * road.laneWidth;

/** y of a lane's centre line [m]. */
export const laneCentreY = (road: Pick<StraightRoad, 'lanes' | 'laneWidth'>, lane: number) =>
  (lane + 0.5) * road.laneWidth - roadWidth(road) / 2;

/** The map's free stretch along x: from behind the road's start to beyond its run-out [m]. */
export const roadMapSpan = (road: StraightRoad) => ({
  from: -ROAD_MAP_MARGIN_M,
  to: road.length + road.runOut + ROAD_MAP_MARGIN_M,
});

/**
 * Cell size of the road's map: the largest at most ROAD_MAP_MAX_RESOLUTION_M that divides the
 * road's width, so its edges lie exactly on cell borders.
 */
export const roadMapResolution = (road: Pick<StraightRoad, 'lanes' | 'laneWidth'>) =>
  roadWidth(road) / Math.ceil(roadWidth(road) / ROAD_MAP_MAX_RESOLUTION_M - 1e-9);

/** Cells of the road's map: what it costs in memory (a byte each) and the viewer draws. */
export function roadMapSize(road: StraightRoad): { width: number; height: number; resolution: number } {
  const resolution = roadMapResolution(road);
  const { from, to } = roadMapSpan(road);
  return {
    width: Math.ceil((to - from) / resolution - 1e-9) + 2,
    height: Math.round(roadWidth(road) / resolution) + 2,
    resolution,
  };
}

/**
 * The road as an occupancy grid, made in memory instead of read from a map file: free between
 * its edges, one row of wall cells along each edge and one column across each end. A road of
 * kilometres is a few hundred thousand cells at this resolution (a 0.05 m map of it would be
 * tens of millions); the wall collision and the lidar work on any cell size.
 */
export function straightRoadGrid(road: StraightRoad): OccupancyGrid {
  const { width, height, resolution } = roadMapSize(road);
  const occupied = new Uint8Array(width * height);
  occupied.fill(1, 0, width);
  occupied.fill(1, (height - 1) * width);
  for (let row = 1; row < height - 1; row++) {
    occupied[row * width] = 1;
    occupied[row * width + width - 1] = 1;
  }
  const { from } = roadMapSpan(road);
  return new OccupancyGrid({
    width,
    height,
    resolution,
    origin: { x: from - resolution, y: -roadWidth(road) / 2 - resolution, yaw: 0 },
    occupied,
  });
}
