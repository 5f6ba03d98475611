/** Where the lower-left corner of the lower-left cell sits in the world, as in a map_server YAML. */
export interface MapOrigin {
  x: number;
  y: number;
  yaw: number;
}

export interface OccupancyGridInit {
  width: number; // cells
  height: number; // cells
  resolution: number; // metres per cell
  origin: MapOrigin;
  /** Row-major flags, row 0 = the bottom of the map (lowest y), as in nav_msgs/OccupancyGrid. */
  occupied: Uint8Array;
}

/**
 * A binary occupancy grid: 1 = occupied (or unknown), 0 = free. Rows count upwards from the
 * origin, so cell (col, row) covers map-frame x in [col, col+1)·resolution and y in [row, row+1)·resolution.
 * Everything outside the grid counts as occupied.
 */
export class OccupancyGrid {
  readonly width: number;
  readonly height: number;
  readonly resolution: number;
  readonly origin: Readonly<MapOrigin>;
  readonly occupied: Uint8Array;
  /** cos/sin of the origin yaw, kept for hot loops that convert coordinates without allocating. */
  readonly cosYaw: number;
  readonly sinYaw: number;

  constructor(init: OccupancyGridInit) {
    const { width, height, resolution, origin, occupied } = init;
    if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
      throw new RangeError(`grid size must be positive integers, got ${width}x${height}`);
    }
    if (!(resolution > 0) || !Number.isFinite(resolution)) throw new RangeError(`resolution must be > 0, got ${resolution}`);
    if (occupied.length !== width * height) {
      throw new RangeError(`occupied has ${occupied.length} cells, expected ${width}x${height}=${width * height}`);
    }
    this.width = width;
    this.height = height;
    this.resolution = resolution;
    this.origin = Object.freeze({ ...origin });
    this.occupied = occupied;
    this.cosYaw = Math.cos(origin.yaw);
    this.sinYaw = Math.sin(origin.yaw);
  }

  /**
   * Builds a grid from image-ordered flags (row 0 = TOP of the map, as in a PGM/PNG file).
   */
  static fromImageOrder(init: Omit<OccupancyGridInit, 'occupied'> & { occupiedTopFirst: Uint8Array }): OccupancyGrid {
    const { width, height, occupiedTopFirst } = init;
    if (occupiedTopFirst.length !== width * height) {
      throw new RangeError(`image has ${occupiedTopFirst.length} pixels, expected ${width}x${height}`);
    }
    const occupied = new Uint8Array(width * height);
    for (let imageRow = 0; imageRow < height; imageRow++) {
      const row = height - 1 - imageRow;
      occupied.set(occupiedTopFirst.subarray(imageRow * width, (imageRow + 1) * width), row * width);
    }
    return new OccupancyGrid({ ...init, occupied });
  }

  /** Continuous map-frame x in cells (column + fraction) of a world point. */
  gridX(x: number, y: number): number {
    const dx = x - this.origin.x;
    const dy = y - this.origin.y;
    return (dx * this.cosYaw + dy * this.sinYaw) / this.resolution;
  }

  /** Continuous map-frame y in cells (row + fraction) of a world point. */
  gridY(x: number, y: number): number {
    const dx = x - this.origin.x;
    const dy = y - this.origin.y;
    return (-dx * this.sinYaw + dy * this.cosYaw) / this.resolution;
  }

  /** The cell containing a world point; may lie outside the grid (check with inBounds). */
  worldToCell(x: number, y: number): { col: number; row: number } {
    return { col: Math.floor(this.gridX(x, y)), row: Math.floor(this.gridY(x, y)) };
  }

  /** World coordinates of a cell's centre. */
  cellToWorld(col: number, row: number): { x: number; y: number } {
    const mx = (col + 0.5) * this.resolution;
    const my = (row + 0.5) * this.resolution;
    return {
      x: this.origin.x + mx * this.cosYaw - my * this.sinYaw,
      y: this.origin.y + mx * this.sinYaw + my * this.cosYaw,
    };
  }

  inBounds(col: number, row: number): boolean {
    return col >= 0 && row >= 0 && col < this.width && row < this.height;
  }

  isOccupiedCell(col: number, row: number): boolean {
    if (!this.inBounds(col, row)) return true;
    return this.occupied[row * this.width + col] !== 0;
  }

  isOccupiedWorld(x: number, y: number): boolean {
    return this.isOccupiedCell(Math.floor(this.gridX(x, y)), Math.floor(this.gridY(x, y)));
  }
}
