import { describe, expect, it } from 'vitest';
import { arcCurvature, chooseGoalPoint, createPurePursuit } from '../../../../src/core/control/pure-pursuit.js';
import type { VehicleContext } from '../../../../src/core/control/vehicle-context.js';

const line = (y: number) => Array.from({ length: 41 }, (_, i) => ({ x: i * 0.5, y, speed: 3 }));
const opts = (waypoints: { x: number; y: number; speed: number }[]) => ({
  waypoints,
  lookahead: 2,
  lookaheadTolerance: 0.3,
  gain: 0.5,
  speedScale: 1,
});

describe('pure pursuit', () => {
  it('picks the nearest waypoint ahead inside the ring L ± a', () => {
    const goal = chooseGoalPoint({ x: 0, y: 0, yaw: 0 }, opts(line(0)))!;
    // ring [1.7, 2.3]: waypoints at x = 2.0 is the only one (spacing 0.5) -> nearest inside ring.
    expect(goal.index).toBe(4);
    expect(goal.localX).toBeCloseTo(2, 12);
    expect(goal.localY).toBeCloseTo(0, 12);
  });

  it('ignores waypoints behind the car', () => {
    const goal = chooseGoalPoint({ x: 10, y: 0, yaw: Math.PI }, opts(line(0)))!;
    expect(goal.localX).toBeGreaterThan(0);
    expect(line(0)[goal.index].x).toBeCloseTo(8, 12);
  });

  it('curvature 2y/L^2 in the base_link frame (Eq. 3.6)', () => {
    // path 1 m to the left: goal in the ring at distance sqrt(x^2 + 1).
    const goal = chooseGoalPoint({ x: 0, y: 0, yaw: 0 }, opts(line(1)))!;
    const L2 = goal.localX ** 2 + goal.localY ** 2;
    expect(goal.localY).toBeCloseTo(1, 12);
    expect(arcCurvature(goal)).toBeCloseTo(2 / L2, 12);
  });

  it('steers left towards a path on its left, at the waypoint speed, and stops when no waypoint is ahead', () => {
    const commands: { speed: number; steer: number }[] = [];
    const ctx = (pose: { x: number; y: number; yaw: number }) =>
      ({
        own: () => ({ ...pose, t: 0, v: 0, steer: 0, yawRate: 0 }),
        drive: (c: { speed: number; steer: number }) => commands.push(c),
      }) as unknown as VehicleContext;
    const app = createPurePursuit({ ...opts(line(1)), maxSteer: 0.4189 });
    app.onTick!(ctx({ x: 0, y: 0, yaw: 0 }));
    expect(commands[0].speed).toBe(3);
    expect(commands[0].steer).toBeGreaterThan(0);
    app.onTick!(ctx({ x: 30, y: 1, yaw: 0 }));
    expect(commands[1]).toEqual({ speed: 0, steer: 0 });
  });
});
