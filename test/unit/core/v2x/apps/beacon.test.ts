import { describe, expect, it } from 'vitest';
import type { Odometry, VehicleContext } from '../../../../../src/core/control/vehicle-context.js';
import { createBeacon } from '../../../../../src/core/v2x/apps/beacon.js';

/** A car accelerating at 2 m/s^2 from 5 m/s, ticked every 10 ms for `seconds`; returns what it sent. */
function drive(rate: number, seconds: number, name = 'car0', dcc?: (t: number) => number) {
  const sent: Array<{ t: number; to: string; type: string; body: Record<string, unknown>; size?: number }> = [];
  let t = 0;
  const own = (): Odometry => ({ t, x: 5 * t + t * t, y: 1, yaw: 0.1, v: 5 + 2 * t, steer: 0, yawRate: 0.3 });
  const ctx = {
    name,
    now: () => t,
    own,
    send: (to: string, type: string, body: Record<string, unknown>, opts?: { sizeBytes?: number }) =>
      sent.push({ t, to, type, body, size: opts?.sizeBytes }),
    dccInterval: dcc && (() => dcc(t)),
  } as unknown as VehicleContext;
  const app = createBeacon(name, { rate, size: 300, to: '*', ...(dcc ? { dcc: 'reactive' as const } : {}) });
  for (let k = 0; k * 0.01 <= seconds + 1e-9; k++) {
    t = Math.round(k * 0.01 * 1e9) / 1e9;
    app.onTick!(ctx);
  }
  return sent;
}

describe('beacon app', () => {
  it('sends its state at the rate, padded to the size, starting at an offset fixed by the car', () => {
    const sent = drive(10, 5);
    expect(sent.length).toBeGreaterThanOrEqual(49);
    expect(sent.length).toBeLessThanOrEqual(51);
    const gaps = sent.slice(1).map((s, i) => +(s.t - sent[i].t).toFixed(9));
    expect(new Set(gaps)).toEqual(new Set([0.1]));
    expect(sent.every((s) => s.to === '*' && s.type === 'beacon' && s.size === 300)).toBe(true);
    expect(drive(10, 5)[0].t).toBe(sent[0].t);
    const firsts = new Set(Array.from({ length: 10 }, (_, i) => drive(10, 1, `car${i}`)[0].t));
    expect(firsts.size).toBeGreaterThan(3);
  });

  it("carries pose, speed, acceleration (from the car's own speed changes), yaw rate and stamp", () => {
    const last = drive(10, 2).at(-1)!;
    expect(last.body).toMatchObject({ y: 1, yaw: 0.1, yawRate: 0.3, stamp: last.t });
    expect(last.body.v).toBeCloseTo(5 + 2 * last.t, 9);
    expect(last.body.a).toBeCloseTo(2, 6);
  });

  it('sends once per tick at most when the rate exceeds the control rate', () => {
    const sent = drive(500, 1);
    expect(sent.length).toBeGreaterThanOrEqual(100);
    expect(sent.length).toBeLessThanOrEqual(101);
    expect(new Set(sent.map((s) => s.t)).size).toBe(sent.length);
  });

  it("with dcc: reactive, keeps at least the interval the car's DCC allows, sending at the first tick it allows", () => {
    const sent = drive(20, 2, 'car0', (t) => (t < 1 ? 0.05 : 0.2));
    const gaps = sent.slice(1).map((s, i) => ({ t: sent[i + 1].t, gap: +(s.t - sent[i].t).toFixed(9) }));
    expect(new Set(gaps.filter((g) => g.t < 1).map((g) => g.gap))).toEqual(new Set([0.05]));
    expect(new Set(gaps.filter((g) => g.t > 1.2).map((g) => g.gap))).toEqual(new Set([0.2]));
  });
});
