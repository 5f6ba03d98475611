import type { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { precomputeDistanceField } from '../../../../src/core/sensing/distance-field.js';

/** The reference lidar's tables: prepareLidarMap's before the march records (commit 18d2bcc). */
export interface ReferenceTables {
  readonly grid: OccupancyGrid;
  readonly paddedWidth: number;
  /** Per padded cell: centre distance − √2 [cells], at least 0; −1 for occupied cells. */
  readonly clearance: Float32Array;
  /** Free cells from this one (inclusive) to the next occupied one along +x, −x, +y, −y. */
  readonly runRight: Uint16Array;
  readonly runLeft: Uint16Array;
  readonly runUp: Uint16Array;
  readonly runDown: Uint16Array;
}

const RUN_CAP = 0xffff;
const built = new WeakMap<object, ReferenceTables>();

/** Built once per map (or grid) object. */
export function referenceTables(map: { grid: OccupancyGrid; distanceField?: Float32Array }): ReferenceTables {
  let tables = built.get(map);
  if (!tables) built.set(map, (tables = buildTables(map.grid, map.distanceField ?? precomputeDistanceField(map.grid))));
  return tables;
}

function buildTables(grid: OccupancyGrid, distanceField: Float32Array): ReferenceTables {
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
  return { grid, paddedWidth: pw, clearance, runRight, runLeft, runUp, runDown };
}
