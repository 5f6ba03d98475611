import { PNG } from 'pngjs';
import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';

/** Shades of the map picture: the page draws it under everything else. */
const FREE_RGB = [236, 239, 243] as const;
const OCCUPIED_RGB = [71, 85, 105] as const;

/**
 * The occupancy grid as a PNG in image order (top row = highest y), one pixel per cell. The
 * browser decodes it natively and places it with the grid's resolution and origin.
 */
export function occupancyGridPng(grid: OccupancyGrid): Buffer {
  const png = new PNG({ width: grid.width, height: grid.height, colorType: 2, inputColorType: 2, inputHasAlpha: false });
  const rgb = Buffer.alloc(grid.width * grid.height * 3);
  for (let imageRow = 0; imageRow < grid.height; imageRow++) {
    const row = grid.height - 1 - imageRow;
    for (let col = 0; col < grid.width; col++) {
      const shade = grid.occupied[row * grid.width + col] ? OCCUPIED_RGB : FREE_RGB;
      const p = (imageRow * grid.width + col) * 3;
      rgb[p] = shade[0];
      rgb[p + 1] = shade[1];
      rgb[p + 2] = shade[2];
    }
  }
  png.data = rgb;
  return PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false });
}
