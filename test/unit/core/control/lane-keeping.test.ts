import { describe, expect, it } from 'vitest';
import { createLaneKeeping, laneKeepingSteer } from '../../../../src/core/control/lane-keeping.js';
import { createInitialState, VehicleModel } from '../../../../src/core/physics/vehicle-model.js';
import { COMMONROAD_BMW_320I as BMW } from '../../../../src/core/physics/vehicle-presets.js';
import { fakeContext } from './fake-context.js';

const lane = { y: -3.5, direction: 1 as const, lookaheadTime: 1, minLookahead: 5, wheelbase: BMW.lf + BMW.lr };

/** The BMW driven by lane keeping at 100 Hz for `seconds`, from a start pose: its trace of (t, y, v). */
function drive(start: { y: number; yaw: number; speed: number }, speed: number, seconds: number) {
  const model = new VehicleModel(BMW, createInitialState({ x: 0, ...start }), { timestep: 0.01, integrator: 'rk4' });
  const app = createLaneKeeping({ ...lane, speed, maxSteer: BMW.s_max });
  const { ctx, state, drives } = fakeContext({ own: {} });
  const trace: { t: number; y: number; v: number; yaw: number }[] = [];
  for (let step = 0; step < seconds * 100; step++) {
    const s = model.state;
    state.t = step * 0.01;
    state.own = { t: state.t, x: s.x, y: s.y, yaw: s.yaw, v: s.v, steer: s.steer, yawRate: s.yawRate };
    app.onTick!(ctx);
    model.step(drives[drives.length - 1]);
    trace.push({ t: (step + 1) * 0.01, y: model.state.y, v: model.state.v, yaw: model.state.yaw });
  }
  return trace;
}

describe('lane keeping', () => {
  it('steers towards the centre line from either side, and not at all on it', () => {
    expect(laneKeepingSteer({ x: 0, y: -3.5, yaw: 0, v: 25 }, lane)).toBeCloseTo(0, 12);
    expect(laneKeepingSteer({ x: 0, y: -3, yaw: 0, v: 25 }, lane)).toBeLessThan(0);
    expect(laneKeepingSteer({ x: 0, y: -4, yaw: 0, v: 25 }, lane)).toBeGreaterThan(0);
    // a lane driven towards -x: left of it (seen driving) is lower y
    expect(laneKeepingSteer({ x: 0, y: -4, yaw: Math.PI, v: 25 }, { ...lane, direction: -1 })).toBeLessThan(0);
  });

  it('looks further ahead the faster the car goes: the same offset asks for less steering at speed', () => {
    const slow = laneKeepingSteer({ x: 0, y: -3, yaw: 0, v: 2 }, lane);
    const fast = laneKeepingSteer({ x: 0, y: -3, yaw: 0, v: 30 }, lane);
    expect(Math.abs(fast)).toBeLessThan(Math.abs(slow) / 10);
  });

  it('a BMW 320i at 25 m/s on the centre line holds it and its speed for 10 s', () => {
    const trace = drive({ y: -3.5, yaw: 0, speed: 25 }, 25, 10);
    for (const p of trace) {
      expect(Math.abs(p.y + 3.5)).toBeLessThan(1e-9);
      expect(p.v).toBeCloseTo(25, 6);
    }
  });

  it('a BMW 320i at 25 m/s started 1 m off the centre settles within 2 cm, overshooting by under 10 cm', () => {
    const trace = drive({ y: -2.5, yaw: 0, speed: 25 }, 25, 10);
    expect(Math.min(...trace.map((p) => p.y + 3.5))).toBeGreaterThan(-0.1);
    expect(Math.abs(trace.at(-1)!.y + 3.5)).toBeLessThan(0.02);
    expect(trace.at(-1)!.v).toBeCloseTo(25, 2);
  });

  it('heading 1 degree away from the centre, half a metre off, it stays in its lane', () => {
    const trace = drive({ y: -3, yaw: 0.02, speed: 25 }, 25, 10);
    // a 3.5 m lane leaves the 1.61 m car 0.945 m either side of the centre
    expect(Math.max(...trace.map((p) => Math.abs(p.y + 3.5)))).toBeLessThan(0.945);
    expect(Math.abs(trace.at(-1)!.y + 3.5)).toBeLessThan(0.02);
    expect(Math.abs(trace.at(-1)!.yaw)).toBeLessThan(0.002);
  });

  it('gets a parked car going and keeps it in the lane', () => {
    const trace = drive({ y: -3.4, yaw: 0, speed: 0 }, 20, 10);
    expect(trace.at(-1)!.v).toBeCloseTo(20, 1);
    expect(Math.abs(trace.at(-1)!.y + 3.5)).toBeLessThan(0.02);
    expect(Math.max(...trace.map((p) => Math.abs(p.y + 3.5)))).toBeLessThan(0.2);
  });
});
