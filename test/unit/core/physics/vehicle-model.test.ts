import { describe, expect, it } from 'vitest';
import { F1TENTH_TIMESTEP, F1TENTH_DEFAULT_PARAMS as P } from '../../../../src/core/physics/defaults.js';
import { KINEMATIC_SWITCH_SPEED, singleTrackDerivatives } from '../../../../src/core/physics/dynamics.js';
import type { VehicleState } from '../../../../src/core/physics/types.js';
import { createInitialState, VehicleModel } from '../../../../src/core/physics/vehicle-model.js';

const dt = F1TENTH_TIMESTEP;
const lwb = P.lf + P.lr;

function runFor(model: VehicleModel, steps: number, cmd: { speed: number; steer: number }): VehicleState[] {
  const states: VehicleState[] = [];
  for (let i = 0; i < steps; i++) states.push(model.step(cmd));
  return states;
}

describe('straight-line braking from 10 m/s with speed command 0', () => {
  const v0 = 10;
  const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 0, speed: v0 }));
  const states = runFor(model, 400, { speed: 0, steer: 0 });

  it('decelerates at exactly a_max while the pid output is saturated', () => {
    // pid asks for 10*a_max/(-v_min)*(0 - v) = -19.02 v, beyond -a_max while v > 0.5 m/s.
    let saturatedSteps = 0;
    let previousV = v0;
    for (const s of states) {
      if (previousV * ((10 * P.a_max) / -P.v_min) > P.a_max) {
        expect((previousV - s.v) / dt).toBeCloseTo(P.a_max, 9);
        saturatedSteps++;
      }
      previousV = s.v;
    }
    expect(saturatedSteps).toBe(100); // (10 - 0.49) / (9.51 * 0.01) -> 100 steps
  });

  it('stops within the distance v^2/(2 a_max) plus the proportional tail', () => {
    const distance = states[states.length - 1].x;
    const ideal = (v0 * v0) / (2 * P.a_max); // 5.2576 m
    // Lower bound: no stop is shorter than at full deceleration (RK4 is exact for constant
    // acceleration, so discretisation cannot shorten it). Upper bound: below the knee speed
    // vk = a_max/kp = 0.5 m/s the pid decays exponentially with rate kp, adding at most vk/kp
    // = 0.026 m (the saturated phase is shorter than ideal by vk^2/(2 a_max), which only helps).
    const kp = (10 * P.a_max) / -P.v_min;
    expect(distance).toBeGreaterThanOrEqual(ideal - 1e-9);
    expect(distance).toBeLessThanOrEqual(ideal + P.a_max / kp / kp);
    expect(states[states.length - 1].v).toBeGreaterThanOrEqual(0); // never reverses
    expect(states[states.length - 1].v).toBeLessThan(1e-6);
  });
});

describe('steering', () => {
  it('applies the steering command two steps late, using 0 (not the wheel angle) meanwhile', () => {
    const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 0, speed: 2, steer: 0.1 }));
    // With angle 0.1 and applied command 0, the wheel turns back at sv_max for two steps.
    expect(model.step({ speed: 2, steer: 0.3 }).steer).toBeCloseTo(0.1 - P.sv_max * dt, 12);
    expect(model.step({ speed: 2, steer: 0.3 }).steer).toBeCloseTo(0.1 - 2 * P.sv_max * dt, 12);
    expect(model.step({ speed: 2, steer: 0.3 }).steer).toBeCloseTo(0.1 - P.sv_max * dt, 12);
  });

  it('reset empties the delay line', () => {
    const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 0 }));
    runFor(model, 5, { speed: 0, steer: 0.3 });
    model.reset(createInitialState({ x: 0, y: 0, yaw: 0 }));
    expect(model.step({ speed: 0, steer: 0.3 }).steer).toBe(0);
    expect(model.step({ speed: 0, steer: 0.3 }).steer).toBe(0);
    expect(model.step({ speed: 0, steer: 0.3 }).steer).toBeCloseTo(P.sv_max * dt, 12);
  });

  it('turns at sv_max and stops at s_max, overshooting by less than one step of sv_max', () => {
    for (const integrator of ['rk4', 'euler'] as const) {
      const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 0 }), { integrator });
      const states = runFor(model, 40, { speed: 0, steer: 1.0 });
      for (let i = 3; i < states.length; i++) {
        expect(states[i].steer - states[i - 1].steer).toBeLessThanOrEqual(P.sv_max * dt + 1e-12);
      }
      const final = states[states.length - 1].steer;
      expect(final).toBeGreaterThanOrEqual(P.s_max);
      expect(final).toBeLessThan(P.s_max + P.sv_max * dt);
      expect(states[30].steer).toBe(final); // it stays there
    }
  });
});

describe('speed limits', () => {
  it('never accelerates beyond v_max, and above v_switch gains at most a_max*v_switch/v', () => {
    const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 0, speed: 15 }));
    let previous = 15;
    for (let i = 0; i < 1500; i++) {
      const { v } = model.step({ speed: 50, steer: 0 });
      expect((v - previous) / dt).toBeLessThanOrEqual((P.a_max * P.v_switch) / previous + 1e-9);
      previous = v;
    }
    // Constant-power acceleration: time to v_max from 15 m/s is (20^2-15^2)/(2 a_max v_switch) = 1.26 s.
    expect(previous).toBeGreaterThanOrEqual(P.v_max);
    // The last step into v_max may overshoot it by at most one step's worth of acceleration.
    expect(previous).toBeLessThan(P.v_max + ((P.a_max * P.v_switch) / P.v_max) * dt);
  });
});

describe('kinematic regime at low speed', () => {
  it('circles with radius (lf+lr)/tan(delta)', () => {
    // 0.192 = 6 * sv_max * dt, so the bang-bang steering settles exactly instead of chattering.
    const delta = 0.192;
    const speed = 0.3;
    const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 0 }));
    const states = runFor(model, 3000, { speed, steer: delta });
    const last = states[states.length - 1];
    expect(Math.abs(last.v)).toBeLessThan(KINEMATIC_SWITCH_SPEED);
    expect(last.steer).toBeCloseTo(delta, 12);
    expect(last.v).toBeCloseTo(speed, 9);
    const radius = lwb / Math.tan(delta);
    // Yaw rate of the kinematic model, measured from consecutive headings.
    const yawRate = (last.yaw - states[states.length - 2].yaw) / dt;
    expect(last.v / yawRate).toBeCloseTo(radius, 6);
    // The last full circle stays on one circle of that radius: its centre is to the left.
    const cx = last.x - radius * Math.sin(last.yaw);
    const cy = last.y + radius * Math.cos(last.yaw);
    for (const s of states.slice(-300)) {
      expect(Math.hypot(s.x - cx, s.y - cy)).toBeCloseTo(radius, 6);
    }
  });

  it('is continuous across |v| = 0.5 m/s: the two branches give nearly the same vector field', () => {
    const below: VehicleState = { x: 0, y: 0, steer: 0.1, v: KINEMATIC_SWITCH_SPEED - 1e-9, yaw: 0.3, yawRate: 0, slip: 0 };
    const dKin = singleTrackDerivatives(below, 1, 0, P);
    below.yawRate = dKin.yaw; // a car in the kinematic regime has yawRate = v tan(delta)/lwb
    const above = { ...below, v: KINEMATIC_SWITCH_SPEED };
    const dDyn = singleTrackDerivatives(above, 1, 0, P);
    expect(dDyn.x).toBeCloseTo(dKin.x, 8); // differs only by the 1e-9 m/s step in v
    expect(dDyn.y).toBeCloseTo(dKin.y, 8);
    expect(dDyn.v).toBe(dKin.v);
    expect(dDyn.yaw).toBeCloseTo(dKin.yaw, 9);
  });

  it('accelerates through the switch without a jump in position, heading or speed', () => {
    const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 0 }));
    const states = runFor(model, 100, { speed: 2, steer: 0.1 });
    const cross = states.findIndex((s) => s.v >= KINEMATIC_SWITCH_SPEED);
    expect(cross).toBeGreaterThan(0);
    for (let i = cross - 3; i < cross + 3; i++) {
      const a = states[i];
      const b = states[i + 1];
      expect(Math.hypot(b.x - a.x, b.y - a.y)).toBeLessThan(b.v * dt * 1.01);
      expect(Math.abs(b.yaw - a.yaw)).toBeLessThan(0.01);
      expect(Math.abs(b.yawRate - a.yawRate)).toBeLessThan(0.1);
    }
  });
});

describe('VehicleModel bookkeeping', () => {
  it('wraps yaw into [0, 2pi] after each step, as the gym does', () => {
    const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: -0.1, speed: 1 }));
    expect(model.step({ speed: 1, steer: 0 }).yaw).toBeCloseTo(2 * Math.PI - 0.1, 12);
  });

  it('supports a moving start and Euler integration, and reports the raw pid inputs', () => {
    const model = new VehicleModel(P, createInitialState({ x: 1, y: 2, yaw: 0, speed: 10 }), { integrator: 'euler' });
    const s = model.step({ speed: 10, steer: 0 });
    expect(s).toEqual({ x: 1 + 10 * dt, y: 2, steer: 0, v: 10, yaw: 0, yawRate: 0, slip: 0 });
    expect(model.lastInputs).toEqual({ accel: 0, steerVel: 0 });
    expect([model.poseX, model.poseY, model.poseYaw, model.speed]).toEqual([s.x, s.y, s.yaw, s.v]);
  });

  it('halt stops the car and keeps the heading unless asked for the gym quirk', () => {
    const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 1, speed: 5 }));
    runFor(model, 10, { speed: 5, steer: 0.2 });
    model.halt();
    expect(model.state.v).toBe(0);
    expect(model.state.yawRate).toBe(0);
    expect(model.state.yaw).toBeGreaterThan(1);
    model.halt({ zeroYaw: true });
    expect(model.state.yaw).toBe(0);
  });

  it('rejects invalid timesteps, integrators, params and states', () => {
    const s0 = createInitialState({ x: 0, y: 0, yaw: 0 });
    expect(() => new VehicleModel(P, s0, { timestep: 0 })).toThrow(RangeError);
    expect(() => new VehicleModel(P, s0, { integrator: 'midpoint' as never })).toThrow(RangeError);
    expect(() => new VehicleModel({ ...P, mu: Number.NaN }, s0)).toThrow(/mu/);
    expect(() => new VehicleModel({ ...P, v_min: 0 }, s0)).toThrow(RangeError);
    expect(() => new VehicleModel(P, { ...s0, x: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(() => new VehicleModel(P, s0, { steerDelaySteps: -1 })).toThrow(RangeError);
  });

  it('steerDelaySteps 0 applies the command at once', () => {
    const model = new VehicleModel(P, createInitialState({ x: 0, y: 0, yaw: 0 }), { steerDelaySteps: 0 });
    expect(model.step({ speed: 0, steer: 0.3 }).steer).toBeCloseTo(P.sv_max * dt, 12);
  });
});

describe('stepInto', () => {
  it('writes into the given state exactly what step returns, and hands back that same object', () => {
    const start = { x: 1, y: -2, yaw: 0.3, speed: 6, steer: 0.05 };
    const byStep = new VehicleModel(P, createInitialState(start));
    const byStepInto = new VehicleModel(P, createInitialState(start));
    const out = createInitialState(start);
    for (let i = 0; i < 200; i++) {
      const cmd = { speed: 8 - i * 0.02, steer: 0.2 * Math.sin(i / 20) };
      const expected = byStep.step(cmd);
      expect(byStepInto.stepInto(cmd, out)).toBe(out);
      expect(out).toEqual(expected);
    }
    expect(out.x).not.toBe(start.x);
  });
});
