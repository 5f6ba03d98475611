import type { LocalGrid } from './rrt-local-grid.js';

export interface RrtSearchOptions {
  maxIterations: number;
  step: number; // [m] longest edge
  goalTolerance: number; // [m]
  goalBias: number; // probability of sampling the goal itself
}

export interface RrtResult {
  /** Car-frame points from the root (0, 0) to the node that got closest to the goal. */
  path: { x: number; y: number }[];
  reachedGoal: boolean;
  nodes: number;
}

/**
 * RRT in a local grid from the car (origin) towards a goal, both in the car frame. Samples are
 * drawn uniformly over the free cells (or, with probability goalBias, the goal); the nearest node
 * grows one step towards the sample if the edge is free. Stops when a node is within
 * goalTolerance of the goal. The returned path ends at the node nearest the goal either way, and
 * is shortened greedily (each point jumps to the farthest later point it can see).
 */
export function planRrt(grid: LocalGrid, goal: { x: number; y: number }, random: () => number, o: RrtSearchOptions): RrtResult {
  const cap = o.maxIterations + 1;
  const xs = new Float64Array(cap);
  const ys = new Float64Array(cap);
  const parent = new Int32Array(cap);
  xs[0] = 0;
  ys[0] = 0;
  parent[0] = -1;
  let count = 1;
  let nearestToGoal = 0;
  let nearestGoalD2 = goal.x * goal.x + goal.y * goal.y;
  const tol2 = o.goalTolerance * o.goalTolerance;
  const half = grid.half;

  for (let it = 0; it < o.maxIterations && nearestGoalD2 > tol2; it++) {
    let sx: number;
    let sy: number;
    if (random() < o.goalBias) {
      sx = goal.x;
      sy = goal.y;
    } else {
      sx = (random() * 2 - 1) * half;
      sy = (random() * 2 - 1) * half;
      if (grid.isOccupied(sx, sy)) continue;
    }
    let near = 0;
    let nearD2 = Infinity;
    for (let k = 0; k < count; k++) {
      const d2 = (xs[k] - sx) ** 2 + (ys[k] - sy) ** 2;
      if (d2 < nearD2) {
        nearD2 = d2;
        near = k;
      }
    }
    const d = Math.sqrt(nearD2);
    if (d < 1e-9) continue;
    const f = Math.min(1, o.step / d);
    const nx = xs[near] + (sx - xs[near]) * f;
    const ny = ys[near] + (sy - ys[near]) * f;
    if (!grid.segmentFree(xs[near], ys[near], nx, ny)) continue;
    xs[count] = nx;
    ys[count] = ny;
    parent[count] = near;
    const g2 = (nx - goal.x) ** 2 + (ny - goal.y) ** 2;
    if (g2 < nearestGoalD2) {
      nearestGoalD2 = g2;
      nearestToGoal = count;
    }
    count++;
  }

  const chain: { x: number; y: number }[] = [];
  for (let k = nearestToGoal; k >= 0; k = parent[k]) chain.push({ x: xs[k], y: ys[k] });
  chain.reverse();
  return { path: shortcut(chain, grid), reachedGoal: nearestGoalD2 <= tol2, nodes: count };
}

function shortcut(path: { x: number; y: number }[], grid: LocalGrid): { x: number; y: number }[] {
  if (path.length <= 2) return path;
  const out = [path[0]];
  let i = 0;
  while (i < path.length - 1) {
    let j = path.length - 1;
    while (j > i + 1 && !grid.segmentFree(path[i].x, path[i].y, path[j].x, path[j].y)) j--;
    out.push(path[j]);
    i = j;
  }
  return out;
}
