import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
import { writeFileNoFollow } from '../../../util/write-no-follow.js';

/**
 * Writes the map's walls (occupied and unknown cells) for the lock-step program's obstacle model
 * (ns3-scripts/lib/map-obstacles.h): a header line, then one byte per cell, 1 wall and 0 free,
 * row 0 the lowest y. The model works in map axes, so a rotated map origin is refused.
 */
export function writeObstacleGrid(grid: OccupancyGrid, path: string): void {
  if (grid.origin.yaw !== 0)
    throw new Error(`obstacles: map needs a map whose origin yaw is 0 (this one has ${grid.origin.yaw} rad); use obstacles: none`);
  const header = `cavsim-occupancy 1 ${grid.width} ${grid.height} ${grid.resolution} ${grid.origin.x} ${grid.origin.y}\n`;
  writeFileNoFollow(
    path,
    Buffer.concat([Buffer.from(header, 'ascii'), Buffer.from(grid.occupied.buffer, grid.occupied.byteOffset, grid.occupied.byteLength)]),
  );
}
