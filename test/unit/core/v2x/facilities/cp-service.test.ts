import { describe, expect, it } from 'vitest';
import type { V2VMessage } from '../../../../../src/core/control/vehicle-context.js';
import { clusterScan, ObjectTracker, TRACKER_DEFAULTS } from '../../../../../src/core/sensing/scan-objects.js';
import { createDenm, type DenmOptions } from '../../../../../src/core/v2x/apps/denm-triggers.js';
import { createTtcBrakeSender } from '../../../../../src/core/v2x/apps/emergency-brake.js';
import { cpmOf, createCpm, lidarSensorInformation } from '../../../../../src/core/v2x/facilities/cp-service.js';
import { CPM_GENERATION_DEFAULTS, CpmGenerationRules } from '../../../../../src/core/v2x/facilities/cpm-generation.js';
import { PerceivedObjectTable } from '../../../../../src/core/v2x/facilities/perceived-objects.js';
import { DEFAULT_GEO_REFERENCE } from '../../../../../src/core/v2x/networking/geo-reference.js';
import { fakeContext } from '../../control/fake-context.js';
import { type Segment, scanOf } from '../../control/synthetic-scan.js';

/** A square box of side `side` centred at (x, y) in the car frame, as four segments. */
const box = (x: number, y: number, side: number): Segment[] => {
  const h = side / 2;
  return [
    [x - h, y - h, x + h, y - h],
    [x + h, y - h, x + h, y + h],
    [x + h, y + h, x - h, y + h],
    [x - h, y + h, x - h, y - h],
  ];
};
const OPTS = { gap: 0.3, minPoints: 3, maxExtent: 1.5 };

describe('lidar scan clustering', () => {
  it('finds each box as one object at its visible face, and nothing in max-range returns', () => {
    const clusters = clusterScan(scanOf([...box(5, 0, 0.4), ...box(3, 3, 0.4)]), OPTS);
    expect(clusters).toHaveLength(2);
    const [left, ahead] = [...clusters].sort((a, b) => b.y - a.y);
    // the visible faces' points: the centre lies between the box's near face and its centre
    expect(ahead.x).toBeGreaterThan(4.79);
    expect(ahead.x).toBeLessThan(5.01);
    expect(Math.abs(ahead.y)).toBeLessThan(0.02);
    expect(Math.hypot(left.x - 3, left.y - 3)).toBeLessThan(0.25);
    expect(ahead.extent).toBeGreaterThan(0.35);
    expect(ahead.extent).toBeLessThan(0.45);
    expect(clusterScan(scanOf([]), OPTS)).toEqual([]);
  });

  it('splits hits farther apart than the gap, drops walls longer than maxExtent and clusters of too few points', () => {
    // two boxes side by side as seen, one 1 m behind the other: two objects with gap 0.3, one with gap 1.5
    const pair = scanOf([...box(5, 0.2, 0.4), ...box(6, -0.2, 0.4)]);
    expect(clusterScan(pair, OPTS)).toHaveLength(2);
    expect(clusterScan(pair, { ...OPTS, gap: 1.5, maxExtent: 3 })).toHaveLength(1);
    // a wall 10 m long beside the car is environment, not an object
    expect(clusterScan(scanOf([[-5, 2, 5, 2]]), OPTS)).toEqual([]);
    // a box 20 m away, 0.12 m wide, is hit by fewer than 3 beams (0.087 m apart there)
    expect(clusterScan(scanOf(box(20, 0, 0.12)), OPTS)).toEqual([]);
    expect(clusterScan(scanOf(box(20, 0, 0.12)), { ...OPTS, minPoints: 1 })).toHaveLength(1);
  });
});

describe('object tracking', () => {
  it("keeps an object's ID, gives it velocity zero first and then its displacement rate, and forgets it when unseen", () => {
    const tracker = new ObjectTracker({ ...TRACKER_DEFAULTS, velocityGain: 1 });
    const [a] = tracker.update(0, [{ x: 10, y: 0, extent: 0.3 }]);
    expect([a.id, a.vx, a.vy]).toEqual([0, 0, 0]);
    const seen = tracker.update(0.1, [
      { x: 20, y: 5, extent: 0.3 },
      { x: 10.5, y: 0, extent: 0.3 },
    ]);
    const moved = seen.find((o) => o.id === 0)!;
    expect(moved.vx).toBeCloseTo(5, 9);
    expect(moved.x).toBe(10.5);
    expect(seen.find((o) => o.id === 1)!.vx).toBe(0);
    // object 0 unseen longer than forgetAfter (0.5 s) is dropped; a new one gets the next ID
    tracker.update(0.3, [{ x: 20, y: 5, extent: 0.3 }]);
    expect(tracker.has(0)).toBe(true);
    tracker.update(0.7, [{ x: 20, y: 5, extent: 0.3 }]);
    expect(tracker.has(0)).toBe(false);
    expect(
      tracker
        .update(0.8, [
          { x: 20, y: 5, extent: 0.3 },
          { x: 0, y: 0, extent: 0.3 },
        ])
        .map((o) => o.id),
    ).toEqual([1, 2]);
  });

  it('associates nearest first: two objects crossing paths keep their IDs', () => {
    const tracker = new ObjectTracker();
    tracker.update(0, [
      { x: 0, y: 0, extent: 0.3 },
      { x: 1, y: 0, extent: 0.3 },
    ]);
    const seen = tracker.update(0.1, [
      { x: 1.2, y: 0, extent: 0.3 },
      { x: 0.2, y: 0, extent: 0.3 },
    ]);
    expect(seen.map((o) => [o.id, o.x])).toEqual([
      [0, 0.2],
      [1, 1.2],
    ]);
  });
});

describe('CPM generation rules (TS 103 324)', () => {
  const rules = () => new CpmGenerationRules(CPM_GENERATION_DEFAULTS);
  it('includes a new object, then again only after 4 m, 0.5 m/s or 1 s', () => {
    const r = rules();
    expect(r.check(0, [{ id: 3, x: 0, y: 0, speed: 5 }])).toEqual({ objects: [{ id: 3, trigger: 'new' }], sensorInformation: true });
    expect(r.check(0.05, [{ id: 3, x: 0, y: 0, speed: 5 }])).toBeUndefined(); // before T_GenCpmMin
    expect(r.check(0.1, [{ id: 3, x: 3.9, y: 0, speed: 5.4 }])).toBeUndefined(); // nothing due, 1 s not over
    expect(r.check(0.2, [{ id: 3, x: 4.1, y: 0, speed: 5 }])?.objects).toEqual([{ id: 3, trigger: 'position' }]);
    expect(r.check(0.3, [{ id: 3, x: 4.1, y: 0, speed: 5.6 }])?.objects).toEqual([{ id: 3, trigger: 'speed' }]);
    expect(r.check(1.2, [{ id: 3, x: 4.1, y: 0, speed: 5.6 }])).toBeUndefined();
    expect(r.check(1.3, [{ id: 3, x: 4.1, y: 0, speed: 5.6 }])).toEqual({ objects: [{ id: 3, trigger: 'time' }], sensorInformation: true });
  });

  it('sends a CPM at least every T_GenCpmMax with nothing to include, the sensor information at most once a second', () => {
    const r = rules();
    const sent: number[] = [];
    const withSensors: number[] = [];
    for (let k = 0; k <= 40; k++) {
      const t = k / 10;
      const d = r.check(t, k < 20 && k % 7 === 3 ? [{ id: k, x: 0, y: 0, speed: 0 }] : []);
      if (d) sent.push(t);
      if (d?.sensorInformation) withSensors.push(t);
    }
    expect(sent).toEqual([0, 0.3, 1, 1.7, 2.7, 3.7]);
    expect(withSensors).toEqual([0, 1, 2.7, 3.7]);
    // a forgotten object's ID is new again
    const q = rules();
    q.check(0, [{ id: 1, x: 0, y: 0, speed: 0 }]);
    q.forget(1);
    expect(q.check(0.1, [{ id: 1, x: 0, y: 0, speed: 0 }])?.objects).toEqual([{ id: 1, trigger: 'new' }]);
  });
});

describe('the cpm app and its receivers', () => {
  const station = { stationId: 77, stationType: 5, length: 0.58, width: 0.31 };
  const opts = { ...CPM_GENERATION_DEFAULTS, ...OPTS, associationDistance: 1.5 };

  it("reports the lidar's field of view and a box ahead in the sender's frame; a receiver places it on the map", () => {
    // the sender at (10, 20) facing north (yaw pi/2); a box 6 m ahead of it, i.e. at (10, 26) on the map
    const { ctx, state } = fakeContext({ own: { x: 10, y: 20, yaw: Math.PI / 2, v: 0 }, scan: scanOf(box(6.2, 0, 0.4)) });
    const sent: V2VMessage[] = [];
    ctx.send = (to, type, body, o) =>
      void sent.push({ id: `s-${sent.length}`, from: 'car2', to, sentAt: state.t, type, body, packet: o?.packet });
    const app = createCpm('car2', opts, station, DEFAULT_GEO_REFERENCE);
    for (let k = 0; k < 20; k++) {
      state.t = k * 0.01;
      state.scan = { ...state.scan!, t: state.t };
      app.onTick!(ctx);
    }
    expect(sent).toHaveLength(1);
    const cpm = cpmOf(sent[0])!;
    expect(cpm.stationId).toBe(77);
    expect(cpm.sensors).toEqual([lidarSensorInformation({ ...scanOf([]), beams: 1080 })]);
    expect(cpm.sensors![0].vehicleSensor.properties[0]).toEqual({
      range: 300,
      horizontalOpeningAngleStart: 2254,
      horizontalOpeningAngleEnd: 1346,
    });
    expect(cpm.objects).toHaveLength(1);
    expect(cpm.objects![0].xDistance.value).toBeGreaterThan(595);
    expect(cpm.objects![0].xDistance.value).toBeLessThan(605);
    expect(Math.abs(cpm.objects![0].yDistance.value)).toBeLessThanOrEqual(2);
    const table = new PerceivedObjectTable(DEFAULT_GEO_REFERENCE);
    expect(table.update(sent[0], 0.2)).toBe(true);
    const [[key, o]] = [...table.view()];
    expect(key).toBe('car2/object0');
    expect(o.state.x).toBeCloseTo(10, 1);
    expect(o.state.y).toBeGreaterThan(25.9);
    expect(o.state.y).toBeLessThan(26.1);
    expect(o.state.v).toBeCloseTo(0, 6);
    // not a CPM: nothing
    expect(table.update({ ...sent[0], type: 'cam' }, 0.2)).toBe(false);
  });

  it('a ttc-brake-sender (and a collision-risk denm) with perceived: true reacts to an object in its path that only the CPM tells of', () => {
    const base = { threshold: 1.5, to: '*', brakeSelf: true, source: 'neighbours' as const, maxAge: 0.3, ttc: 'geometric' as const };
    // car2 at (0, 10) facing south sees an object 8 m ahead (at (0, 2)) driving south at 5 m/s, towards car0
    const { ctx: senderCtx, state: s } = fakeContext({ own: { x: 0, y: 10, yaw: -Math.PI / 2, v: 0 }, scan: scanOf(box(8.2, 0, 0.4)) });
    const sent: V2VMessage[] = [];
    senderCtx.send = (to, type, body, o) =>
      void sent.push({ id: `m${sent.length}`, from: 'car2', to, sentAt: s.t, type, body, packet: o?.packet });
    const app = createCpm('car2', opts, station, DEFAULT_GEO_REFERENCE);
    for (let k = 0; k < 30; k++) {
      s.t = k * 0.01;
      s.scan = { ...scanOf(box(8.2 + 5 * s.t, 0, 0.4)), t: s.t };
      app.onTick!(senderCtx);
    }
    const last = sent.at(-1)!;
    // in car2's frame (x forward, to the south) at about 5 m/s
    expect(Math.abs(cpmOf(last)!.objects![0].xSpeed.value - 500)).toBeLessThan(30);
    for (const perceived of [true, false]) {
      // car0 at (0, -4) facing north, standing: the object reaches it in about 1 s
      const { ctx, state } = fakeContext({ own: { x: 0, y: -4, yaw: Math.PI / 2, v: 0 }, t: 0.3 });
      let braked = '';
      ctx.emergencyBrake = (reason) => void (braked = reason);
      const brake = createTtcBrakeSender({ ...base, perceived }, { own: { length: 0.58, width: 0.31 } }, DEFAULT_GEO_REFERENCE);
      brake.onMessage?.(ctx, last);
      state.t = 0.31;
      brake.onTick!(ctx);
      expect(braked, `perceived: ${perceived}`).toBe(perceived ? braked || 'missing' : '');
      if (perceived) expect(braked).toMatch(/^TTC 0\.\d+ s to car2\/object0$/);
    }
    // a denm app on collision-risk with perceived: true sees the same risk and sends a DENM (97/1)
    for (const perceived of [true, false]) {
      const { ctx, state } = fakeContext({ own: { x: 0, y: -4, yaw: Math.PI / 2, v: 0 }, t: 0.3 });
      const denms: string[] = [];
      ctx.send = (_to, type) => void denms.push(type);
      const options: DenmOptions = {
        on: 'collision-risk',
        deceleration: 4,
        ttc: 1.5,
        source: 'neighbours',
        maxAge: 0.3,
        ttcMethod: 'geometric',
        stationaryAfter: 1,
        cancel: true,
        scope: 'geo-broadcast',
        hops: 10,
        perceived,
      };
      const denm = createDenm(options, station, DEFAULT_GEO_REFERENCE, { own: { length: 0.58, width: 0.31 } });
      denm.onMessage?.(ctx, last);
      state.t = 0.31;
      denm.onTick!(ctx);
      expect(denms, `perceived: ${perceived}`).toEqual(perceived ? ['denm'] : []);
    }
  });
});
