import { describe, expect, it } from 'vitest';
import { WallTracer } from '../../../src/channel/radio/wifi-80211p/wall-loss.js';
import { OccupancyGrid } from '../../../src/core/map/occupancy-grid.js';

/** 20 x 10 cells of 1 m; a wall two cells thick at columns 10-11 over rows 0-5. */
function grid(): OccupancyGrid {
  const occupied = new Uint8Array(20 * 10);
  for (let r = 0; r < 6; r++) for (const c of [10, 11]) occupied[r * 20 + c] = 1;
  return new OccupancyGrid({ width: 20, height: 10, resolution: 1, origin: { x: 0, y: 0, yaw: 0 }, occupied });
}

describe("the builtin radio's walls (Sommer et al., as the ns-3 engine)", () => {
  it('a path through the wall crosses it once and runs about its thickness inside it', () => {
    const o = new WallTracer(grid()).between(2.5, 2.5, 17.5, 2.5);
    expect(o.cuts).toBe(1);
    expect(o.metres).toBeGreaterThan(1.5);
    expect(o.metres).toBeLessThan(2.6);
  });

  it('a path above the wall, or along a road with walls beside it, is clear', () => {
    const tracer = new WallTracer(grid());
    expect(tracer.between(2.5, 8.5, 17.5, 8.5)).toEqual({ cuts: 0, metres: 0 });
    expect(tracer.between(2.5, 6.5, 17.5, 9.5)).toEqual({ cuts: 0, metres: 0 });
    // a box that holds wall cells though the path misses them: traced, and still clear
    expect(tracer.between(12.5, 1.5, 18.5, 9.5)).toEqual({ cuts: 0, metres: 0 });
  });
});
