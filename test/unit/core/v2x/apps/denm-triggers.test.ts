import { describe, expect, it } from 'vitest';
import type { Odometry, V2VMessage } from '../../../../../src/core/control/vehicle-context.js';
import { createDenm, type DenmOptions } from '../../../../../src/core/v2x/apps/denm-triggers.js';
import { createBrakeReceiver } from '../../../../../src/core/v2x/apps/emergency-brake.js';
import { createWarning, createWarningReceiver } from '../../../../../src/core/v2x/apps/warning.js';
import { concerns, DENM_MESSAGE, DenOriginator, DenReceiver, denmOf } from '../../../../../src/core/v2x/facilities/den-service.js';
import { type GeoReference, toLatLon } from '../../../../../src/core/v2x/networking/geo-reference.js';
import { decodeBroadcast } from '../../../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf } from '../../../../../src/core/v2x/networking/station-id.js';
import { fakeContext } from '../../control/fake-context.js';

const REF: GeoReference = { lat: 48.7758, lon: 9.1829 };
const STATION = { stationId: stationIdOf('car0'), stationType: 5, length: 0.58, width: 0.31 };
const BODIES = { own: { length: 0.58, width: 0.31 } };
const BASE: DenmOptions = {
  on: 'hard-braking',
  deceleration: 4,
  ttc: 2,
  source: 'infrastructure',
  maxAge: 1,
  ttcMethod: 'geometric',
  stationaryAfter: 1,
  cancel: true,
  scope: 'geo-broadcast',
  hops: 10,
};

/**
 * Ticks an app at 100 Hz for `seconds` on a car driving east at `speed(t)`; `setup` may change the
 * context each tick. Returns the messages it sent (with their packets) and what it logged.
 */
function drive(
  app: ReturnType<typeof createDenm>,
  seconds: number,
  speed: (t: number) => number,
  setup: (ctx: ReturnType<typeof fakeContext>['ctx'], t: number) => void = () => {},
) {
  const { ctx, state } = fakeContext({ own: { x: 0, y: -1, v: speed(0) } });
  const sent: V2VMessage[] = [];
  const logs: { t: number; event: string; detail?: Record<string, unknown> }[] = [];
  ctx.send = (to, type, body, o) =>
    void sent.push({
      id: `car0-${sent.length + 1}`,
      from: 'car0',
      to,
      type,
      body,
      sentAt: state.t,
      ...(o?.packet ? { packet: o.packet } : {}),
    });
  ctx.log = (event, detail) => void logs.push({ t: state.t, event, detail });
  for (let i = 0; i <= Math.round(seconds * 100); i++) {
    state.t = i / 100;
    const v = speed(state.t);
    state.own = { ...state.own!, t: state.t, x: state.own!.x + v * 0.01, v };
    setup(ctx, state.t);
    app.onTick!(ctx);
  }
  return { sent, logs };
}

const denms = (sent: V2VMessage[]) => sent.map((m) => ({ t: m.sentAt, ...denmOf(m)! }));
const brakeAt = (at: number, from: number, decel: number) => (t: number) => (t < at ? from : Math.max(0, from - decel * (t - at)));

describe('the denm app', () => {
  it('hard braking: a new DENM at the first tick past the threshold, repeated every 100 ms, cancelled when the car stops', () => {
    const { sent, logs } = drive(createDenm(BASE, STATION, REF, BODIES), 4, brakeAt(1, 10, 9));
    const d = denms(sent);
    expect(sent.every((m) => m.type === DENM_MESSAGE && m.to === '*')).toBe(true);
    // the speed first falls between the ticks at 1.00 and 1.01 s
    expect(d[0].t).toBeCloseTo(1.01, 9);
    expect(logs[0]).toMatchObject({ event: 'denm-triggered', detail: { cause: 99, sub_cause: 1 } });
    const first = d[0].denm.management;
    expect(first).toMatchObject({
      detectionTime: 1010,
      referenceTime: 1010,
      relevanceDistance: 2,
      relevanceTrafficDirection: 1,
      validityDuration: 2,
      transmissionInterval: 100,
      stationType: 5,
    });
    expect(first.actionId).toEqual({ originatingStationId: STATION.stationId, sequenceNumber: 0 });
    expect(d[0].area!.radius).toBe(200);
    // the event is where the car was at 1.01 s: 101 ticks at 10 m/s and one at 9.91 m/s east of x = 0
    const at = toLatLon(REF, 10.1 + 0.0991, -1);
    expect(Math.abs(first.eventPosition.latitude - Math.round(at.lat * 1e7))).toBeLessThanOrEqual(1);
    expect(Math.abs(first.eventPosition.longitude - Math.round(at.lon * 1e7))).toBeLessThanOrEqual(1);
    // 10 m/s at 9 m/s^2: below 0.05 m/s (stopped) at 2.11 s; the same DENM every 100 ms until then
    const cancelled = logs.find((l) => l.event === 'denm-cancelled')!.t;
    expect(cancelled).toBeCloseTo(2.11, 9);
    const before = d.filter((x) => x.t < cancelled);
    expect(before.map((x) => +(x.t - 1.01).toFixed(6))).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(before.every((x) => JSON.stringify(x.denm) === JSON.stringify(d[0].denm))).toBe(true);
    // then the cancellation: same actionID, termination isCancellation, newer reference time, repeated until its validity
    const after = d.filter((x) => x.t >= cancelled);
    expect(after[0].denm.management).toMatchObject({ actionId: first.actionId, termination: 0, referenceTime: 2110, detectionTime: 2110 });
    expect(after.map((x) => +x.t.toFixed(6))).toEqual(Array.from({ length: 19 }, (_, k) => +(2.11 + k / 10).toFixed(6))); // to 4 s, the run's end
    // each copy is a new GN packet: the sequence number counts up
    expect(sent.map((m) => decodeBroadcast(m.packet!).sequenceNumber)).toEqual(sent.map((_, i) => i));
  });

  it('updates a lasting event with the same actionID; without cancel the DENM runs out at its validity', () => {
    const slowly = brakeAt(1, 10, 5); // 2 s of hard braking
    const { sent } = drive(createDenm({ ...BASE, updateInterval: 0.5, cancel: false, validity: 1 }, STATION, REF, BODIES), 5, slowly);
    const d = denms(sent);
    const refs = [...new Set(d.map((x) => x.denm.management.referenceTime))];
    expect(refs).toEqual([1010, 1510, 2010, 2510]);
    expect(new Set(d.map((x) => x.denm.management.actionId.sequenceNumber))).toEqual(new Set([0]));
    expect(d.some((x) => x.denm.management.termination !== undefined)).toBe(false);
    // the last update at 2.51 s is repeated for its 1 s validity, then nothing
    expect(d.at(-1)!.t).toBeCloseTo(3.51, 9);
  });

  it('emergency brake: triggered when the car latches its emergency brake (dangerousSituation / aebEngaged)', () => {
    let braking = false;
    const { sent } = drive(
      createDenm({ ...BASE, on: 'emergency-brake' }, STATION, REF, BODIES),
      1,
      (t) => (t < 0.5 ? 10 : 5),
      (ctx, t) => {
        braking = t >= 0.3;
        ctx.isBraking = () => braking;
      },
    );
    const d = denms(sent);
    expect(d[0].t).toBeCloseTo(0.3, 9);
    expect(d[0].denm.situation!.eventType).toEqual({ causeCode: 99, subCauseCode: 5 });
  });

  it('collision risk: a TTC to a car ahead below the threshold (collisionRisk / longitudinalCollisionRisk), to all traffic', () => {
    const ahead: Odometry = { t: 0, x: 30, y: -1, yaw: 0, v: 0, steer: 0, yawRate: 0 };
    const { sent } = drive(
      createDenm({ ...BASE, on: 'collision-risk', ttc: 2 }, STATION, REF, BODIES),
      1.5,
      () => 10,
      (ctx) => {
        ctx.others = () => new Map([['car9', ahead]]);
      },
    );
    const d = denms(sent);
    // the car is at 10 t + 0.1 m; the footprints (0.58 m long) touch when it is at 29.42 m: a TTC
    // under 2 s from x = 9.42 m, t = 0.932 s, so at the tick of 0.94 s
    expect(d[0].t).toBeCloseTo(0.94, 9);
    expect(d[0].denm.situation!.eventType).toEqual({ causeCode: 97, subCauseCode: 1 });
    expect(d[0].denm.management.relevanceTrafficDirection).toBe(0);
  });

  it('stationary: after standing still `stationaryAfter`, once a second, cancelled 0.3 s after it moves off; topological scope', () => {
    const { sent, logs } = drive(
      createDenm({ ...BASE, on: 'stationary', stationaryAfter: 1, scope: 'topological' }, STATION, REF, BODIES),
      6,
      (t) => (t < 4 ? 0 : 2),
    );
    const d = denms(sent);
    const news = d.filter((x) => x.denm.management.termination === undefined);
    // the copy at 4 s still goes: the car moved off then, and the event ends 0.3 s later
    expect(news.map((x) => x.t)).toEqual([1, 2, 3, 4]);
    expect(news[0].denm.situation!.eventType).toEqual({ causeCode: 94, subCauseCode: 0 });
    expect(news[0].area).toBeUndefined(); // a TSB packet has no area
    expect(news[0].denm.management.validityDuration).toBe(60);
    expect(logs.find((l) => l.event === 'denm-cancelled')!.t).toBeCloseTo(4.3, 9);
  });
});

describe('receiving DENMs', () => {
  const leader = (x: number): Odometry => ({ t: 1, x, y: -1, yaw: 0, v: 10, steer: 0, yawRate: 0 });
  /** A DENM message as the originator sends it at `t`. */
  function originate(cause = { causeCode: 99, subCauseCode: 1 }) {
    const service = new DenOriginator(STATION, REF, {
      cause,
      validity: 2,
      repetitionInterval: 0.1,
      repetitionDuration: 2,
      relevanceDistance: 200,
      trafficDirection: 'upstreamTraffic',
      scope: 'geo-broadcast',
      hops: 10,
      informationQuality: 7,
    });
    const { ctx, state } = fakeContext({ own: leader(10) });
    const out: V2VMessage[] = [];
    ctx.send = (to, type, body, o) =>
      void out.push({ id: `car0-${out.length + 1}`, from: 'car0', to, type, body, sentAt: state.t, packet: o!.packet! });
    const at = (t: number, act?: (own: Odometry) => void) => {
      state.t = t;
      state.own = leader(10 + t);
      act?.(state.own);
      service.tick(ctx, t);
      return out.at(-1)!;
    };
    return { service, at };
  }

  it('tells new events, repetitions, updates, cancellations, outdated, expired and out-of-area copies apart', () => {
    const { service, at } = originate();
    const rx = new DenReceiver(REF);
    const behind = { x: 0, y: -1 };
    const n = at(1, (own) => service.trigger(1, own));
    const r = at(1.1);
    expect(rx.receive(n, 1.01, behind)!.kind).toBe('new');
    expect(rx.receive(r, 1.11, behind)!.kind).toBe('repetition');
    expect(rx.receive({ ...n, type: 'warning' }, 1.2, behind)).toBeUndefined();
    expect(rx.receive(n, 1.12, { x: 500, y: -1 })!.kind).toBe('outside-area');
    const u = at(1.5, (own) => service.update(1.5, own));
    expect(rx.receive(u, 1.51, behind)!.kind).toBe('update');
    expect(rx.receive(r, 1.52, behind)!.kind).toBe('outdated');
    const c = at(1.8, (own) => service.terminate(1.8, own));
    expect(rx.receive(c, 1.81, behind)!.kind).toBe('cancellation');
    expect(rx.receive(c, 1.91, behind)!.kind).toBe('repetition');
    expect(new DenReceiver(REF).receive(c, 1.81, behind)!.kind).toBe('unknown-termination');
    expect(new DenReceiver(REF).receive(n, 3.5, behind)!.kind).toBe('expired'); // detected at 1 s, valid 2 s
    // without the packet (a runtime that carries JSON), the body gives the same DENM
    expect(denmOf({ ...n, packet: undefined })).toEqual(denmOf(n));
  });

  it('upstream traffic is behind the event as it faced', () => {
    const { service, at } = originate();
    const denm = denmOf(at(1, (own) => service.trigger(1, own)))!.denm;
    expect(concerns(denm, REF, { x: 5, y: -1 })).toBe(true);
    expect(concerns(denm, REF, { x: 15, y: -1 })).toBe(false);
  });

  it('warning-receiver brakes on the first DENM that concerns it, of the events it listens to', () => {
    const { service, at } = originate();
    const n = at(1, (own) => service.trigger(1, own));
    const run = (opts: Parameters<typeof createWarningReceiver>[0], x: number) => {
      const { ctx } = fakeContext({ own: { x, y: -1, v: 10 }, t: 1.01 });
      const log: string[] = [];
      ctx.emergencyBrake = (reason) => void log.push(`brake ${reason}`);
      ctx.log = (event, detail) => void log.push(`${event} ${JSON.stringify(detail)}`);
      const app = createWarningReceiver(opts, REF);
      app.onMessage!(ctx, n);
      app.onMessage!(ctx, n);
      return log;
    };
    const behind = run({ react: 'brake' }, 5);
    expect(behind).toEqual([
      `warning-received ${JSON.stringify({ from: 'car0', id: n.id, event: 'hard-braking', format: 'denm', cause: 99, sub_cause: 1, detected_s: 1 })}`,
      `brake DENM ${n.id} from car0`,
    ]);
    expect(run({ react: 'brake' }, 15)).toEqual([]); // ahead of the braking car
    expect(run({ react: 'brake', events: ['stationary'] }, 5)).toEqual([]);
  });

  it('warning-receiver with react: slow gives the speed back when the DENM it slowed for is cancelled', () => {
    const { service, at } = originate();
    const { ctx } = fakeContext({ own: { x: 5, y: -1, v: 10 }, t: 1.01 });
    const speeds: (number | undefined)[] = [];
    ctx.overrideSpeed = (s) => void speeds.push(s);
    const app = createWarningReceiver({ react: 'slow', speed: 3 }, REF);
    app.onMessage!(
      ctx,
      at(1, (own) => service.trigger(1, own)),
    );
    app.onMessage!(
      ctx,
      at(1.5, (own) => service.terminate(1.5, own)),
    );
    expect(speeds).toEqual([3, undefined]);
  });

  it('the warning app with format: denm sends a DENM every `every` for `for`', () => {
    const app = createWarning(
      { deceleration: 4, every: 0.1, for: 1, to: '*', event: 'hard-braking', format: 'denm' },
      { station: STATION, geoReference: REF },
    );
    const { sent, logs } = drive(app as ReturnType<typeof createDenm>, 4, brakeAt(1, 10, 9));
    const d = denms(sent);
    expect(d.map((x) => +(x.t - 1.01).toFixed(6))).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(new Set(d.map((x) => x.denm.management.referenceTime))).toEqual(new Set([1010]));
    expect(d[0].denm.situation!.eventType).toEqual({ causeCode: 99, subCauseCode: 1 });
    expect(logs[0]).toMatchObject({ event: 'warning-started', detail: { format: 'denm' } });
  });

  it('brake-receiver brakes on a DENM of an emergency brake or a collision risk, not of a hard brake', () => {
    const brakes = (cause: { causeCode: number; subCauseCode: number }) => {
      const { service, at } = originate(cause);
      const { ctx } = fakeContext({ own: { x: 5, y: -1, v: 10 }, t: 1.01 });
      const reasons: string[] = [];
      ctx.emergencyBrake = (reason) => void reasons.push(reason);
      createBrakeReceiver(REF).onMessage!(
        ctx,
        at(1, (own) => service.trigger(1, own)),
      );
      return reasons;
    };
    expect(brakes({ causeCode: 99, subCauseCode: 5 })).toEqual(['DENM car0-1 from car0']);
    expect(brakes({ causeCode: 97, subCauseCode: 1 })).toEqual(['DENM car0-1 from car0']);
    expect(brakes({ causeCode: 99, subCauseCode: 1 })).toEqual([]);
  });
});
