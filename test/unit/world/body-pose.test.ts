import { describe, expect, it } from 'vitest';
import { MAX_EXTRAPOLATION_S, poseAt } from '../../../src/world/body-pose.js';

const report = { x: 1, y: 2, yaw: 0, v: 4, yawRate: 0, steer: 0.1, stampNs: 1_000_000_000n };
const later = (s: number) => report.stampNs + BigInt(Math.round(s * 1e9));

describe("a reported pose at a step's time", () => {
  it('moves on in a straight line at the reported speed', () => {
    expect(poseAt(report, later(0.05))).toEqual({ x: 1.2, y: 2, yaw: 0, v: 4, yawRate: 0, steer: 0.1, slip: 0 });
  });

  it('moves on along an arc at the reported yaw rate', () => {
    const s = poseAt({ ...report, yawRate: Math.PI / 2 / 0.1, v: 1 }, later(0.1));
    const r = 1 / (Math.PI / 2 / 0.1);
    expect(s.x).toBeCloseTo(1 + r, 9);
    expect(s.y).toBeCloseTo(2 + r, 9);
    expect(s.yaw).toBeCloseTo(Math.PI / 2, 9);
  });

  it('moves on at most MAX_EXTRAPOLATION_S, and never back in time', () => {
    expect(poseAt(report, later(5)).x).toBeCloseTo(1 + 4 * MAX_EXTRAPOLATION_S, 9);
    expect(poseAt(report, later(-0.01)).x).toBe(1);
  });
});

import { loadMap } from '../../../src/core/map/load-map.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { World } from '../../../src/world/world.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const { write } = scenarioWorkspace('body-world');

describe('a mirrored car in the world', () => {
  it('is never integrated, sits where it is placed, collides there and keeps moving after it', async () => {
    const s = await loadScenario(
      write(`name: t
map: maps/corridor.yaml
duration: 2s
vehicles:
  - name: car0
    start: { x: 0, y: -1, yaw: 0, speed: 5 }
    external: { role: body }
  - name: car1
    start: { x: 3, y: -1, yaw: 0, speed: 0 }
`),
    );
    const world = new World(s, await loadMap(s.mapFile!));
    const [body, parked] = world.cars;
    expect(body.mirrored).toBe(true);
    expect(parked.mirrored).toBe(false);
    world.step();
    expect(body.state.x).toBe(0);
    world.mirror(body, { ...body.state, x: 2.9, v: 1 });
    const hits = world.step();
    expect(hits).toEqual([{ t: 2 * world.timestep, a: 'car0', b: 'car1', speedA: 1, speedB: 0 }]);
    expect(body.collided && parked.collided).toBe(true);
    world.mirror(body, { ...body.state, x: -3 });
    world.step();
    expect(body.state.x).toBe(-3);
  });
});
