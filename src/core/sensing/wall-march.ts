import { CLEARANCE_OF_CODE } from './clearance-code.js';
import { FreeDiscChain } from './free-disc-chain.js';
import { type LidarMap, RUN_CAP } from './lidar-map.js';

// Nudge past a cell boundary so the next lookup lands in the next cell [cells].
const CELL_EXIT_NUDGE = 1e-6;
// Avoids Infinity·0 = NaN for axis-parallel beams.
const HUGE = 1e30;
// Smaller free discs [cells] are not worth linking into the chain.
const MIN_DISC_RADIUS = 1;
// Discs are shrunk by this [cells], and a ray starts this much short of the chain's reach: far
// more than the rounding in the chain's arithmetic, so a ray never starts at or past a wall.
const DISC_MARGIN = 1e-4;
const REACH_MARGIN = 1e-6;

/**
 * The wall part of a scan: for each beam, the exact distance to the first occupied cell.
 *
 * A ray advances by the cell's clearance (no occupied cell is nearer to any point of the cell),
 * combined with run-length steps: a ray that mostly moves along x skips to where it leaves the
 * current row, or stops exactly where the row's free run ends (likewise columns for rays along y).
 *
 * Beams are marched in order and share what they learn (FreeDiscChain): each clearance step of
 * more than MIN_DISC_RADIUS proves a disc free, and a beam starts where the chain of such discs
 * stops covering it: 3.3 steps a beam instead of 7.5 on the shipped maps (1.7 instead of 4.9 on
 * the open one). The range found is the same first occupied cell, reached from further along.
 */
export class WallMarch {
  private readonly chain: FreeDiscChain;

  constructor(
    private readonly map: LidarMap,
    private readonly beamCos: Float64Array,
    private readonly beamSin: Float64Array,
    angleIncrement: number,
  ) {
    // The distance between neighbouring beams at distance 1 from the lidar, rounded up.
    this.chain = new FreeDiscChain(2 * Math.sin(angleIncrement / 2) * (1 + 1e-9));
  }

  /**
   * ranges[i] = distance [m] to the first occupied cell along beam i (at most rangeMax), for the
   * lidar at (u0, v0) in padded-grid cells, heading `headingInGrid` [rad] in the grid's frame.
   */
  scan(u0: number, v0: number, headingInGrid: number, rangeMax: number, ranges: Float32Array): void {
    const { grid, clearance, tilesWide } = this.map;
    const resolution = grid.resolution;
    const chain = this.chain;
    const ch = Math.cos(headingInGrid);
    const sh = Math.sin(headingInGrid);
    const maxT = rangeMax / resolution;
    const beams = this.beamCos.length;
    chain.clear();

    for (let i = 0; i < beams; i++) {
      const dx = ch * this.beamCos[i] - sh * this.beamSin[i];
      const dy = sh * this.beamCos[i] + ch * this.beamSin[i];
      const reach = chain.reach(i);
      let t = reach > REACH_MARGIN ? reach - REACH_MARGIN : 0; // distance along the ray [cells]
      if (t >= maxT) {
        ranges[i] = maxT * resolution;
        continue;
      }
      const invDx = dx === 0 ? HUGE : 1 / dx;
      const invDy = dy === 0 ? HUGE : 1 / dy;
      // Cell boundary ahead in x is col + offX; likewise y.
      const offX = dx < 0 ? 0 : 1;
      const offY = dy < 0 ? 0 : 1;
      if (Math.abs(dx) >= Math.abs(dy)) {
        const run = dx > 0 ? this.map.runRight : this.map.runLeft;
        const sign = dx > 0 ? 1 : -1;
        for (;;) {
          const u = u0 + dx * t;
          const v = v0 + dy * t;
          const col = u | 0;
          const row = v | 0;
          // tiledIndex(col, row, tilesWide), inline
          const k = (((row >> 3) * tilesWide + (col >> 3)) << 6) | ((row & 7) << 3) | (col & 7);
          const safe = CLEARANCE_OF_CODE[clearance[k]];
          if (safe < 0) break;
          const leaveRow = (row + offY - v) * invDy;
          // Walls are at least `safe` away: the row's run cannot end before the ray leaves the row.
          if (safe <= leaveRow) {
            const runLength = run[k];
            const hitInRow = (col + offX + sign * (runLength - 1) - u) * invDx;
            if (hitInRow <= leaveRow) {
              t += hitInRow;
              if (runLength < RUN_CAP || t >= maxT) break;
              continue; // a capped run: march on from its end
            }
          }
          const byRow = leaveRow + CELL_EXIT_NUDGE;
          if (safe > byRow && safe > MIN_DISC_RADIUS) chain.add(i, t, safe - DISC_MARGIN);
          t += Math.max(byRow, safe);
          if (t >= maxT) break;
        }
      } else {
        const run = dy > 0 ? this.map.runUp : this.map.runDown;
        const sign = dy > 0 ? 1 : -1;
        for (;;) {
          const u = u0 + dx * t;
          const v = v0 + dy * t;
          const col = u | 0;
          const row = v | 0;
          const k = (((row >> 3) * tilesWide + (col >> 3)) << 6) | ((row & 7) << 3) | (col & 7);
          const safe = CLEARANCE_OF_CODE[clearance[k]];
          if (safe < 0) break;
          const leaveCol = (col + offX - u) * invDx;
          if (safe <= leaveCol) {
            const runLength = run[k];
            const hitInCol = (row + offY + sign * (runLength - 1) - v) * invDy;
            if (hitInCol <= leaveCol) {
              t += hitInCol;
              if (runLength < RUN_CAP || t >= maxT) break;
              continue;
            }
          }
          const byCol = leaveCol + CELL_EXIT_NUDGE;
          if (safe > byCol && safe > MIN_DISC_RADIUS) chain.add(i, t, safe - DISC_MARGIN);
          t += Math.max(byCol, safe);
          if (t >= maxT) break;
        }
      }
      ranges[i] = (t < maxT ? t : maxT) * resolution;
    }
  }
}
