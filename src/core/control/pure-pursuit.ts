import type { VehicleApp, VehicleContext } from './vehicle-context.js';
import type { Waypoint } from './waypoints.js';

export interface PurePursuitOptions {
  waypoints: readonly Waypoint[];
  lookahead: number; // L [m]
  lookaheadTolerance: number; // a [m]: the goal is searched in the ring L - a .. L + a
  gain: number; // P gain from curvature [1/m] to steering angle [rad]
  speedScale: number;
  maxSteer?: number;
}

export interface GoalPoint {
  index: number;
  /** In the car's base_link frame: x forward, y left. */
  localX: number;
  localY: number;
}

/**
 * The thesis's goal-point choice: among waypoints ahead of the car (local x > 0) inside the ring
 * of radii L - a and L + a, the one nearest the car. If the ring is empty, the waypoint ahead whose
 * distance is closest to L; if nothing is ahead, none.
 */
export function chooseGoalPoint(pose: { x: number; y: number; yaw: number }, opts: PurePursuitOptions): GoalPoint | undefined {
  const c = Math.cos(pose.yaw);
  const s = Math.sin(pose.yaw);
  const inner = Math.max(0, opts.lookahead - opts.lookaheadTolerance);
  const outer = opts.lookahead + opts.lookaheadTolerance;
  const inner2 = inner * inner;
  const outer2 = outer * outer;
  const points = opts.waypoints;
  let best = -1;
  let bestD2 = Infinity;
  // Squared distances first: most waypoints are rejected without a square root or a rotation.
  for (let i = 0; i < points.length; i++) {
    const dx = points[i].x - pose.x;
    const dy = points[i].y - pose.y;
    const d2 = dx * dx + dy * dy;
    if (d2 < inner2 || d2 > outer2 || d2 >= bestD2 || c * dx + s * dy <= 0) continue;
    best = i;
    bestD2 = d2;
  }
  if (best < 0) {
    let gap = Infinity;
    for (let i = 0; i < points.length; i++) {
      const dx = points[i].x - pose.x;
      const dy = points[i].y - pose.y;
      if (c * dx + s * dy <= 0) continue;
      const g = Math.abs(Math.sqrt(dx * dx + dy * dy) - opts.lookahead);
      if (g < gap) {
        gap = g;
        best = i;
      }
    }
  }
  if (best < 0) return undefined;
  const dx = points[best].x - pose.x;
  const dy = points[best].y - pose.y;
  return { index: best, localX: c * dx + s * dy, localY: -s * dx + c * dy };
}

/** Follow-the-arc: curvature 2y / L^2 of the arc through the car and the goal point (Eq. 3.6). */
export const arcCurvature = (goal: GoalPoint) => (2 * goal.localY) / (goal.localX ** 2 + goal.localY ** 2);

export function createPurePursuit(opts: PurePursuitOptions): VehicleApp {
  const maxSteer = opts.maxSteer ?? Infinity;
  return {
    onTick(ctx: VehicleContext) {
      const own = ctx.own();
      if (!own) return;
      const goal = chooseGoalPoint(own, opts);
      if (!goal) {
        ctx.drive({ speed: 0, steer: 0 });
        return;
      }
      const steer = Math.max(-maxSteer, Math.min(maxSteer, opts.gain * arcCurvature(goal)));
      ctx.drive({ speed: opts.waypoints[goal.index].speed * opts.speedScale, steer });
    },
  };
}
