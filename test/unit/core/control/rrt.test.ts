import { describe, expect, it } from 'vitest';
import { createRrt, densify } from '../../../../src/core/control/rrt.js';
import { LocalGrid } from '../../../../src/core/control/rrt-local-grid.js';
import { planRrt } from '../../../../src/core/control/rrt-planner.js';
import { createRandom } from '../../../../src/util/random.js';
import { fakeContext } from './fake-context.js';
import { corridor, type Segment, scanOf } from './synthetic-scan.js';

const SEARCH = { maxIterations: 2000, step: 0.4, goalTolerance: 0.3, goalBias: 0.15 };

function gridOf(segments: Segment[], inflation = 0.3): LocalGrid {
  const grid = new LocalGrid(8, 0.1);
  grid.fill(scanOf(segments), inflation);
  return grid;
}

describe('LocalGrid', () => {
  it('marks beam ends grown by the inflation radius, and nothing else', () => {
    const grid = gridOf([[2, -10, 2, 10]], 0.3);
    expect(grid.isOccupied(2.0, 0)).toBe(true);
    expect(grid.isOccupied(1.75, 0.5)).toBe(true); // 0.25 m from the wall
    expect(grid.isOccupied(1.6, 0)).toBe(false); // 0.4 m from it
    expect(grid.isOccupied(0, 0)).toBe(false);
    expect(grid.isOccupied(-3, 3)).toBe(false);
    expect(grid.isOccupied(5, 0)).toBe(true); // off the 8 m grid
  });

  it('checks segments against occupied cells', () => {
    const grid = gridOf([[2, -1, 2, 1]], 0.2);
    expect(grid.segmentFree(0, 0, 3.5, 0)).toBe(false);
    expect(grid.segmentFree(0, 0, 3.5, 3)).toBe(true); // crosses x = 2 at y = 1.7, above the grown wall end (1.2)
  });

  it('can clear the cells around the car', () => {
    const grid = gridOf([[0.2, -3, 0.2, 3]], 0.3);
    expect(grid.isOccupied(0, 0)).toBe(true);
    grid.clearAroundOrigin(0.3);
    expect(grid.isOccupied(0, 0)).toBe(false);
    expect(grid.isOccupied(0.2, 0)).toBe(false);
    expect(grid.isOccupied(0.2, 1)).toBe(true);
  });
});

describe('planRrt', () => {
  it('goes straight to a goal in free space (the shortcut leaves one edge)', () => {
    const r = planRrt(gridOf([]), { x: 3, y: 0 }, createRandom(1), SEARCH);
    expect(r.reachedGoal).toBe(true);
    expect(r.path[0]).toEqual({ x: 0, y: 0 });
    expect(r.path).toHaveLength(2);
    expect(Math.hypot(r.path[1].x - 3, r.path[1].y)).toBeLessThanOrEqual(0.3);
  });

  it('goes round a wall between the car and the goal, every edge clear of it', () => {
    const grid = gridOf([[1.5, -3, 1.5, 1]]); // a wall across the way, open above y = 1
    const r = planRrt(grid, { x: 3, y: 0 }, createRandom(7), SEARCH);
    expect(r.reachedGoal).toBe(true);
    expect(r.path.length).toBeGreaterThan(2);
    for (let i = 1; i < r.path.length; i++) expect(grid.segmentFree(r.path[i - 1].x, r.path[i - 1].y, r.path[i].x, r.path[i].y)).toBe(true);
    expect(Math.max(...r.path.map((p) => p.y))).toBeGreaterThan(1);
  });

  it('is deterministic for a seed', () => {
    const grid = gridOf([[1.5, -3, 1.5, 1]]);
    const a = planRrt(grid, { x: 3, y: 0 }, createRandom(42), SEARCH);
    const b = planRrt(grid, { x: 3, y: 0 }, createRandom(42), SEARCH);
    expect(a).toEqual(b);
  });

  it('ends at the node nearest an unreachable goal', () => {
    const grid = gridOf([[1.5, -5, 1.5, 5]]); // a wall across the whole grid
    const r = planRrt(grid, { x: 3, y: 0 }, createRandom(3), { ...SEARCH, maxIterations: 500 });
    expect(r.reachedGoal).toBe(false);
    expect(r.nodes).toBeGreaterThan(10);
    const end = r.path.at(-1)!;
    expect(end.x).toBeLessThan(1.5);
    expect(end.x).toBeGreaterThan(0.5);
  });
});

describe('createRrt', () => {
  const waypoints = Array.from({ length: 81 }, (_, i) => ({ x: -10 + i * 0.25, y: 0, speed: 4 }));
  const opts = {
    waypoints,
    goalDistance: 3,
    localSize: 8,
    localResolution: 0.1,
    inflation: 0.3,
    planRate: 20,
    lookahead: 1.2,
    lookaheadTolerance: 0.4,
    gain: 0.5,
    speedScale: 0.5,
    maxSteer: 0.4189,
    seed: 5,
    ...SEARCH,
  };

  it('drives along a clear corridor at the scaled waypoint speed, nearly straight', () => {
    const { ctx, drives } = fakeContext({ own: { x: 0, y: 0, yaw: 0 }, scan: scanOf(corridor(1.5, 1.5)) });
    createRrt(opts).onTick!(ctx);
    expect(drives[0].speed).toBe(2);
    expect(Math.abs(drives[0].steer)).toBeLessThan(0.05);
  });

  it('steers round an obstacle on the global path', () => {
    // A block on the path 1.5 m ahead, from y = -1.5 to 0.4: the way round is on the left.
    const scan = scanOf([...corridor(1.8, 1.5), [1.5, -1.5, 1.5, 0.4], [1.5, 0.4, 2.5, 0.4], [2.5, 0.4, 2.5, -1.5]]);
    const { ctx, drives } = fakeContext({ own: { x: 0, y: 0, yaw: 0 }, scan });
    createRrt(opts).onTick!(ctx);
    expect(drives[0].steer).toBeGreaterThan(0.1);
  });

  it('plans at planRate, not at every tick, and gives the same commands for the same seed', () => {
    const run = () => {
      const { ctx, state, drives } = fakeContext({ own: { x: 0, y: 0.3, yaw: 0.1 }, scan: scanOf(corridor(1.2, 1.8)) });
      const app = createRrt(opts);
      for (let k = 0; k < 10; k++) {
        state.t = k * 0.01;
        app.onTick!(ctx);
      }
      return drives;
    };
    const a = run();
    expect(a).toHaveLength(10);
    expect(a).toEqual(run());
  });

  it('falls back to the global path without a scan, and stops with nothing ahead', () => {
    const noScan = fakeContext({ own: { x: 0, y: 0.5, yaw: 0 } });
    createRrt(opts).onTick!(noScan.ctx);
    expect(noScan.drives[0].steer).toBeLessThan(0); // back towards y = 0
    const past = fakeContext({ own: { x: 20, y: 0, yaw: 0 }, scan: scanOf([]) });
    createRrt(opts).onTick!(past.ctx);
    expect(past.drives[0]).toEqual({ speed: 0, steer: 0 });
  });
});

describe('densify', () => {
  it('puts points at most `spacing` apart and keeps the ends', () => {
    const pts = densify(
      [
        { x: 0, y: 0 },
        { x: 1, y: 0 },
        { x: 1, y: 0.35 },
      ],
      0.1,
    );
    expect(pts[0]).toEqual({ x: 0, y: 0 });
    expect(pts.at(-1)).toEqual({ x: 1, y: 0.35 });
    for (let i = 1; i < pts.length; i++)
      expect(Math.hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y)).toBeLessThanOrEqual(0.1 + 1e-12);
  });
});
