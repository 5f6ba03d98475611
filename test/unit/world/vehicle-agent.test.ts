import { describe, expect, it } from 'vitest';
import type { Odometry, V2VMessage, VehicleApp } from '../../../src/core/control/vehicle-context.js';
import type { DriveCommand } from '../../../src/core/physics/types.js';
import { createTtcBrakeSender } from '../../../src/core/v2x/apps/emergency-brake.js';
import { createScriptedEvent } from '../../../src/core/v2x/apps/scripted-event.js';
import { createWarning, createWarningReceiver } from '../../../src/core/v2x/apps/warning.js';
import { projectedState } from '../../../src/core/v2x/facilities/projected-state.js';
import { type AgentHost, VehicleAgent } from '../../../src/world/vehicle-agent.js';

function host(own: Partial<Odometry> = {}) {
  const state = { t: 0, own: { t: 0, x: 0, y: 0, yaw: 0, v: 0, steer: 0, yawRate: 0, ...own } as Odometry };
  const drives: DriveCommand[] = [];
  const sent: V2VMessage[] = [];
  const events: string[] = [];
  const h: AgentHost = {
    now: () => state.t,
    own: () => state.own,
    others: () => new Map(),
    scan: () => undefined,
    publishDrive: (c) => drives.push(c),
    transmit: (m) => sent.push(m),
    log: (e) => events.push(e),
  };
  return { h, state, drives, sent, events };
}
const controller = (speed: number, steer = 0.1): VehicleApp => ({ onTick: (ctx) => ctx.drive({ speed, steer }) });
const beacon = (from: string, stamp: number, body: Partial<Record<string, number>> = {}): V2VMessage => ({
  id: `${from}-${stamp}`,
  from,
  to: '*',
  sentAt: stamp,
  type: 'beacon',
  body: { x: 0, y: 0, yaw: 0, v: 0, a: 0, yawRate: 0, stamp, ...body },
});

describe('VehicleAgent', () => {
  it("sends the controller's command once per tick; an override takes the speed, an emergency brake wins", () => {
    const { h, drives } = host();
    let override: number | undefined;
    const agent = new VehicleAgent('car0', [controller(5), { onTick: (ctx) => ctx.overrideSpeed(override) }], h);
    agent.tick();
    override = 2;
    agent.tick();
    override = undefined;
    agent.tick();
    agent.emergencyBrake('test');
    agent.tick();
    expect(drives).toEqual([
      { speed: 5, steer: 0.1 },
      { speed: 2, steer: 0.1 },
      { speed: 5, steer: 0.1 },
      { speed: 0, steer: 0.1 },
      { speed: 0, steer: 0.1 },
    ]);
  });

  it('keeps the newest beacon of each sender as its neighbour table; other messages and older beacons leave it', () => {
    const { h, state } = host();
    const agent = new VehicleAgent('car0', [], h);
    state.t = 1;
    agent.receive(beacon('car1', 0.9, { x: 10, v: 3, a: -1 }));
    agent.receive(beacon('car1', 0.8, { x: 99 }));
    agent.receive({ ...beacon('car2', 0.9), type: 'emergency-brake' });
    agent.receive({ ...beacon('car3', 0.9), body: { x: 'far' } });
    expect([...agent.neighbours().keys()]).toEqual(['car1']);
    expect(agent.neighbours().get('car1')).toMatchObject({ state: { t: 0.9, x: 10, v: 3 }, acceleration: -1, receivedAt: 1 });
    // carried forward at its speed and heading
    expect(projectedState(agent.neighbours().get('car1')!, 1.9)).toMatchObject({ t: 1.9, x: 13, y: 0 });
  });
});

describe('scripted-event', () => {
  it('brakes at the given deceleration from the speed it had, down to a stop; or holds a new speed', () => {
    const { h, state, drives, events } = host({ v: 10 });
    const agent = new VehicleAgent('car0', [controller(10), createScriptedEvent({ at: 1, brake: 4 })], h);
    for (const t of [0.5, 1, 1.5, 2, 3, 4]) {
      state.t = t;
      agent.tick();
    }
    expect(drives.map((d) => d.speed)).toEqual([10, 10, 8, 6, 2, 0]);
    expect(events).toEqual(['scripted-event']);
    const slow = host({ v: 10 });
    const car = new VehicleAgent('car0', [controller(10), createScriptedEvent({ at: 0, speed: 3 })], slow.h);
    car.tick();
    expect(slow.drives).toEqual([{ speed: 3, steer: 0.1 }]);
  });
});

describe('ttc-brake-sender from neighbours', () => {
  it('sees another car only through its beacons, carried forward, and not once they are older than maxAge', () => {
    const opts = {
      threshold: 0.7,
      to: 'car1',
      brakeSelf: false,
      source: 'neighbours' as const,
      maxAge: 0.5,
      ttc: 'centre-distance' as const,
    };
    const { h, state, sent } = host({ x: 0, v: 10 });
    const agent = new VehicleAgent('car0', [createTtcBrakeSender(opts, { own: { length: 0.5, width: 0.3 } })], h);
    // car1 10 m ahead, coming at 10 m/s: TTC 0.5 s, but the beacon is 0.6 s old
    agent.receive(beacon('car1', 0, { x: 10, yaw: Math.PI, v: 10 }));
    state.t = 0.6;
    agent.tick();
    expect(sent).toEqual([]);
    // a fresh beacon: carried forward 0.1 s, 9 m away at 20 m/s closing
    agent.receive(beacon('car1', 0.5, { x: 10, yaw: Math.PI, v: 10 }));
    agent.tick();
    expect(sent).toHaveLength(1);
    expect(sent[0].body.ttc_s).toBeCloseTo(0.45, 2);
  });

  it('geometric TTC: the bumpers, not the centres, and each car at its own size', () => {
    const opts = { threshold: 0.7, to: 'car1', brakeSelf: false, source: 'neighbours' as const, maxAge: 0.5, ttc: 'geometric' as const };
    const { h, sent } = host({ x: 0, v: 10 });
    const agent = new VehicleAgent(
      'car0',
      [createTtcBrakeSender(opts, { own: { length: 0.5, width: 0.3 }, others: new Map([['car1', { length: 4.5, width: 1.8 }]]) })],
      h,
    );
    agent.receive(beacon('car1', 0, { x: 14, yaw: Math.PI, v: 10 }));
    agent.tick();
    // (14 - 0.25 - 2.25) m at 20 m/s: 0.575 s (Eq. 3.7 would read 0.7 s and not send)
    expect(sent[0].body.ttc_s).toBeCloseTo(0.575, 9);
  });
});

describe('warning', () => {
  it('once started, repeats every interval for its duration; at a time, or on hard braking', () => {
    const timed = host({ v: 10 });
    const sender = new VehicleAgent('car0', [createWarning({ at: 1, every: 0.1, for: 0.3, to: '*', event: 'hard-braking' })], timed.h);
    for (let k = 0; k <= 20; k++) {
      timed.state.t = 0.9 + k * 0.05;
      sender.tick();
    }
    expect(timed.sent.map((m) => [m.sentAt.toFixed(2), m.body.copy])).toEqual([
      ['1.00', 1],
      ['1.10', 2],
      ['1.20', 3],
      ['1.30', 4],
    ]);
    expect(timed.sent[0]).toMatchObject({ to: '*', type: 'warning', body: { event: 'hard-braking' } });

    const braking = host({ v: 10 });
    const car = new VehicleAgent(
      'car0',
      [createWarning({ deceleration: 4, every: 1, for: 0, to: 'car1', event: 'hard-braking' })],
      braking.h,
    );
    for (const [t, v] of [
      [0, 10],
      [0.1, 9.7],
      [0.2, 9.2],
    ]) {
      braking.state.t = t;
      braking.state.own = { ...braking.state.own, t, v };
      car.tick();
    }
    // 3 m/s^2 is not hard braking; 5 m/s^2 is
    expect(braking.sent.map((m) => m.sentAt)).toEqual([0.2]);
  });

  it('a receiver reacts to the first copy only: brakes, or slows to its speed', () => {
    const warning: V2VMessage = { id: 'car0-1', from: 'car0', to: '*', sentAt: 1, type: 'warning', body: { event: 'hard-braking' } };
    const braking = host();
    const car = new VehicleAgent('car1', [controller(8), createWarningReceiver({ react: 'brake' })], braking.h);
    car.receive(warning);
    car.receive({ ...warning, id: 'car0-2' });
    expect(braking.events).toEqual(['warning-received', 'emergency-brake']);
    const slowing = host();
    const other = new VehicleAgent('car2', [controller(8), createWarningReceiver({ react: 'slow', speed: 3 })], slowing.h);
    other.tick();
    other.receive(warning);
    other.tick();
    expect(slowing.drives.map((d) => d.speed)).toEqual([8, 3, 3]);
  });
});
