import { describe, expect, it } from 'vitest';
import { chooseGoalPoint } from '../../../../src/core/control/pure-pursuit.js';
import type { ResolvedVehicle } from '../../../../src/scenario/resolved.js';
import { goalFinderFor } from '../../../../src/ui/viewer/goal-points.js';

const waypoints = Array.from({ length: 40 }, (_, i) => ({ x: i * 0.5, y: 0, speed: 2 }));
const pursuit = { type: 'pure-pursuit' as const, waypoints, lookahead: 2, lookaheadTolerance: 0.5, gain: 0.3, speedScale: 1, loop: false };
const vehicles = [
  { name: 'car0', controller: pursuit },
  { name: 'car1', controller: { type: 'idle' as const } },
] as unknown as ResolvedVehicle[];

describe('goalFinderFor', () => {
  const find = goalFinderFor({ vehicles });

  it("is the controller's own goal-point choice at the logged pose", () => {
    for (const pose of [
      { x: 0, y: 0, yaw: 0 },
      { x: 5.2, y: 0.3, yaw: 0.2 },
      { x: 10, y: -1, yaw: -0.4 },
    ]) {
      const expected = chooseGoalPoint(pose, pursuit)!.index;
      expect(find('car0', pose)).toBe(expected);
    }
    expect(find('car0', { x: 0, y: 0, yaw: 0 })).toBe(3); // the nearest waypoint in the 1.5-2.5 m ring
  });

  it('is -1 with nothing ahead, for other controllers and for unknown cars', () => {
    expect(find('car0', { x: 30, y: 0, yaw: 0 })).toBe(-1);
    expect(find('car1', { x: 0, y: 0, yaw: 0 })).toBe(-1);
    expect(find('nobody', { x: 0, y: 0, yaw: 0 })).toBe(-1);
  });
});
