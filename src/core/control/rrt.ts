import { createRandom } from '../../util/random.js';
import { arcCurvature, chooseGoalPoint } from './pure-pursuit.js';
import { LocalGrid } from './rrt-local-grid.js';
import { planRrt, type RrtSearchOptions } from './rrt-planner.js';
import type { VehicleApp, VehicleContext } from './vehicle-context.js';
import type { Waypoint } from './waypoints.js';

export interface RrtOptions extends RrtSearchOptions {
  waypoints: readonly Waypoint[];
  goalDistance: number; // [m] goal point on the global path
  localSize: number; // [m] side of the local grid
  localResolution: number; // [m]
  inflation: number; // [m]
  planRate: number; // [Hz]
  lookahead: number; // [m] pure pursuit on the planned path
  lookaheadTolerance: number; // [m]
  gain: number;
  speedScale: number;
  maxSteer: number; // [rad]
  /** Seeds the sampler: the same seed gives the same plans. */
  seed: number;
}

// The planned path is resampled this finely [m] so that pure pursuit always finds a point in its ring.
const PATH_SPACING = 0.1;

/**
 * RRT local planner: at planRate, builds a local occupancy grid from the scan, picks the goal
 * point goalDistance ahead on the global waypoints (pure pursuit's goal choice), grows a tree
 * towards it and keeps the path in map coordinates; at every tick it tracks that path with pure
 * pursuit. Speed is the global goal waypoint's speed times speedScale. Without a scan yet it
 * tracks the global path directly.
 */
export function createRrt(opts: RrtOptions): VehicleApp {
  const grid = new LocalGrid(opts.localSize, opts.localResolution);
  const random = createRandom(opts.seed);
  const global = {
    waypoints: opts.waypoints,
    lookahead: opts.goalDistance,
    lookaheadTolerance: opts.goalDistance / 4,
    gain: opts.gain,
    speedScale: opts.speedScale,
  };
  let path: Waypoint[] = [];
  let nextPlanAt = -Infinity;

  const plan = (ctx: VehicleContext) => {
    const own = ctx.own();
    const scan = ctx.scan();
    if (!own || !scan) return;
    const goal = chooseGoalPoint(own, global);
    if (!goal) {
      path = [];
      return;
    }
    grid.fill(scan, opts.inflation);
    grid.clearAroundOrigin(opts.inflation);
    const result = planRrt(grid, { x: goal.localX, y: goal.localY }, random, opts);
    const speed = opts.waypoints[goal.index].speed * opts.speedScale;
    const c = Math.cos(own.yaw);
    const s = Math.sin(own.yaw);
    path = densify(result.path, PATH_SPACING).map((p) => ({ x: own.x + c * p.x - s * p.y, y: own.y + s * p.x + c * p.y, speed }));
  };

  return {
    onTick(ctx: VehicleContext) {
      const now = ctx.now();
      if (now >= nextPlanAt) {
        plan(ctx);
        nextPlanAt = now + 1 / opts.planRate - 1e-9;
      }
      const own = ctx.own();
      if (!own) return;
      const tracked =
        path.length >= 2 ? { ...global, waypoints: path, lookahead: opts.lookahead, lookaheadTolerance: opts.lookaheadTolerance } : global;
      const target = chooseGoalPoint(own, tracked) ?? chooseGoalPoint(own, global);
      if (!target) {
        ctx.drive({ speed: 0, steer: 0 });
        return;
      }
      const steer = Math.max(-opts.maxSteer, Math.min(opts.maxSteer, opts.gain * arcCurvature(target)));
      const speed = path[0]?.speed ?? opts.waypoints[target.index].speed * opts.speedScale;
      ctx.drive({ speed, steer });
    },
  };
}

/** Points along a polyline every `spacing` metres, keeping its ends. */
export function densify(points: readonly { x: number; y: number }[], spacing: number): { x: number; y: number }[] {
  if (points.length < 2) return points.slice();
  const out = [points[0]];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const n = Math.max(1, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / spacing));
    for (let k = 1; k <= n; k++) out.push({ x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n });
  }
  return out;
}
