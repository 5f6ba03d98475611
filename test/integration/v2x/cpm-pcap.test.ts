import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { type Cpm, encodeCpm } from '../../../src/core/v2x/codec/cpm-pdu.js';
import { toMapXY, yawOfHeading } from '../../../src/core/v2x/networking/geo-reference.js';
import { encodeShb, GN_BTP_HEADER_BYTES, GN_ETHERTYPE } from '../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf, stationMac } from '../../../src/core/v2x/networking/station-id.js';
import { BROADCAST_MAC, ethernetFrame, PCAP_EPOCH_UNIX_S, PcapLog } from '../../../src/measurement/pcap-log.js';
import { createRandom } from '../../../src/util/random.js';
import { scratchDir } from '../../support/scratch-dir.js';

/**
 * scenarios/cpm-hidden-obstacle.yaml in virtual time (the simulated runtime), its v2v.pcap decoded
 * by Wireshark 4.0's own dissectors (/usr/bin/tshark, "ITS message - CPM": TR 103 562 V2.1.1):
 * car2's CPMs, its station ID, the lidar's field of view, car1 among the perceived objects where
 * vehicles.csv has it, the CPM and object inclusion intervals of TS 103 324's rules; and car0,
 * which cannot see car1, braking in time on the CPMs and colliding without them.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCENARIO = join(ROOT, 'scenarios/cpm-hidden-obstacle.yaml');
const TSHARK = '/usr/bin/tshark';
const FIELDS = [
  'frame.time_epoch',
  'frame.protocols',
  'frame.len',
  'btpb.dstport',
  'its.protocolVersion',
  'its.messageID',
  'its.stationID',
  'cpm.generationDeltaTime',
  'its.latitude',
  'its.longitude',
  'its.headingValue',
  'its.speedValue',
  'cpm.numberOfPerceivedObjects',
  'cpm.sensorID',
  'cpm.type',
  'cpm.range',
  'cpm.horizontalOpeningAngleStart',
  'cpm.horizontalOpeningAngleEnd',
  'cpm.objectID',
  'cpm.timeOfMeasurement',
  'cpm.objectAge',
  'cpm.value',
  '_ws.expert',
  '_ws.malformed',
];
const REF = { lat: 48.7758, lon: 9.1829 };
const EPS = 1e-6;
/** car1's centre is this far behind the face car2's lidar sees (half its 0.58 m length) [m]. */
const HALF_LENGTH = 0.29;

interface Frame {
  t: number;
  layers: Record<string, string[] | undefined>;
}

interface SeenObject {
  t: number; // when it was measured [s]
  sentAt: number;
  id: number;
  age: number; // [ms]
  x: number; // map frame [m]
  y: number;
  vx: number; // over the ground [m/s]
  vy: number;
}

const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];
const num = (f: Frame, field: string) => Number(f.layers[field]![0]);
const nums = (f: Frame, field: string) => (f.layers[field] ?? []).map(Number);
function tshark(pcap: string): Frame[] {
  const json = execFileSync(TSHARK, ['-r', pcap, '-T', 'json', ...FIELDS.flatMap((f) => ['-e', f])], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(json) as { _source: { layers: Frame['layers'] } }[]).map((p) => ({
    layers: p._source.layers,
    t: Number(p._source.layers['frame.time_epoch']![0]) - PCAP_EPOCH_UNIX_S,
  }));
}

/** A CPM's objects on the map, from tshark's fields alone: the reference position and heading place each. */
function objectsOf(f: Frame): SeenObject[] {
  const origin = toMapXY(REF, num(f, 'its.latitude') / 1e7, num(f, 'its.longitude') / 1e7);
  const yaw = yawOfHeading(num(f, 'its.headingValue') / 10);
  const speed = num(f, 'its.speedValue') / 100;
  const [c, s] = [Math.cos(yaw), Math.sin(yaw)];
  const ids = nums(f, 'cpm.objectID');
  const values = nums(f, 'cpm.value'); // per object: xDistance, yDistance, xSpeed, ySpeed, planarObjectDimension1
  expect(values.length, 'five values per object').toBe(ids.length * 5);
  const times = nums(f, 'cpm.timeOfMeasurement');
  const ages = nums(f, 'cpm.objectAge');
  return ids.map((id, k) => {
    const [xd, yd, xs, ys] = values.slice(5 * k, 5 * k + 4).map((v) => v / 100);
    return {
      t: f.t + times[k] / 1000,
      sentAt: f.t,
      id,
      age: ages[k],
      x: origin.x + c * xd - s * yd,
      y: origin.y + s * xd + c * yd,
      vx: c * xs - s * ys + speed * c,
      vy: s * xs + c * ys + speed * s,
    };
  });
}

describe('CPMs in v2v.pcap, decoded by tshark 4.0', () => {
  let frames: Frame[];
  let cpms: Frame[];
  let runDir: string;
  let summary: Awaited<ReturnType<typeof runScenarioSimulated>>['summary'];
  let car1: Map<string, Record<string, string>>;
  const car1At = (t: number) => car1.get(t.toFixed(2))!;
  beforeAll(async () => {
    const run = await runScenarioSimulated(SCENARIO, { runsDir: scratchDir('cavsim-cpm-'), runId: 'cpm', mcapByDefault: false });
    expect(run.summary.status, run.summary.reason).toBe('completed');
    runDir = run.runDir;
    summary = run.summary;
    frames = tshark(join(runDir, 'v2v.pcap'));
    cpms = frames.filter((f) => f.layers['btpb.dstport']?.[0] === '2009');
    car1 = new Map(
      rows(runDir, 'vehicles.csv')
        .filter((r) => r.vehicle === 'car1')
        .map((r) => [Number(r.t_s).toFixed(2), r]),
    );
  }, 60_000);

  it('decodes every frame with no malformed packet; the CPMs as GN SHB / BTP-B 2009 / CPM v1 from car2', () => {
    expect(frames.length).toBe(new Set(rows(runDir, 'v2v.csv').map((r) => r.id)).size);
    for (const f of frames) {
      expect(f.layers['_ws.malformed'], JSON.stringify(f.layers)).toBeUndefined();
      expect(f.layers['_ws.expert'], JSON.stringify(f.layers)).toBeUndefined();
    }
    const sentCpms = new Set(
      rows(runDir, 'v2v.csv')
        .filter((r) => r.type === 'cpm')
        .map((r) => r.id),
    );
    expect(cpms.length).toBe(sentCpms.size);
    // a CPM at least every second (T_GenCpmMax), more while car1 (the one object: the map's walls are none) is due
    expect(cpms.length).toBeGreaterThanOrEqual(Math.floor(summary.sim_time_s));
    for (const f of cpms) {
      expect(f.layers['frame.protocols']![0]).toBe('eth:ethertype:gnw:btpb:its');
      expect([num(f, 'its.protocolVersion'), num(f, 'its.messageID'), num(f, 'its.stationID')]).toEqual([1, 14, stationIdOf('car2')]);
      expect(num(f, 'cpm.generationDeltaTime')).toBe(Math.round(f.t * 1000) % 65536);
      // numberOfPerceivedObjects counts what the lidar perceives now; the container holds those due
      expect(num(f, 'cpm.numberOfPerceivedObjects')).toBeGreaterThanOrEqual(nums(f, 'cpm.objectID').length);
    }
    const sizes = cpms.map((f) => num(f, 'frame.len') - 14 - GN_BTP_HEADER_BYTES);
    const counts = cpms.map((f) => nums(f, 'cpm.objectID').length);
    console.log(
      `[cpm-pcap] ${cpms.length} CPMs in ${summary.sim_time_s} s; CPM ${Math.min(...sizes)}..${Math.max(...sizes)} B (mean ${(sizes.reduce((a, b) => a + b, 0) / sizes.length).toFixed(1)}), ${Math.min(...counts)}..${Math.max(...counts)} objects each`,
    );
  });

  it("carries the lidar's field of view once a second or with the first CPM after, and a CPM every 100 ms to 1 s", () => {
    const withSensors = cpms.filter((f) => f.layers['cpm.sensorID'] !== undefined);
    expect(withSensors[0]).toBe(cpms[0]);
    for (const f of withSensors) {
      // sensor 1, a lidar of 30 m over 4.7 rad about the heading: from -134.6 degrees (225.4) to 134.6
      expect([
        num(f, 'cpm.sensorID'),
        num(f, 'cpm.type'),
        num(f, 'cpm.range'),
        num(f, 'cpm.horizontalOpeningAngleStart'),
        num(f, 'cpm.horizontalOpeningAngleEnd'),
      ]).toEqual([1, 2, 300, 2254, 1346]);
    }
    const gaps = (fs: Frame[]) => fs.slice(1).map((f, i) => f.t - fs[i].t);
    for (const g of gaps(withSensors)) {
      expect(g).toBeGreaterThanOrEqual(1 - EPS);
      // the first CPM at least T_AddSensorInformation (1 s) after the last, and CPMs are at most 1 s apart
      expect(g).toBeLessThanOrEqual(2 + EPS);
    }
    for (const g of gaps(cpms)) {
      expect(g).toBeGreaterThanOrEqual(0.1 - EPS);
      expect(g).toBeLessThanOrEqual(1 + EPS);
    }
    console.log(
      `[cpm-pcap] CPM intervals ${Math.min(...gaps(cpms)).toFixed(2)}..${Math.max(...gaps(cpms)).toFixed(2)} s, ${(cpms.length / summary.sim_time_s).toFixed(1)} Hz; sensor information in ${withSensors.length}`,
    );
  });

  it('reports car1, which car0 cannot see, where vehicles.csv has it and moving north at its speed', () => {
    const seen = cpms.flatMap(objectsOf).filter((o) => {
      const c = car1At(o.t);
      return Math.hypot(o.x - Number(c.x_m), o.y - Number(c.y_m)) < 1;
    });
    expect(seen.length).toBeGreaterThan(5);
    for (const o of seen) {
      // the face car2 sees: car1's front, half its length ahead of its centre
      const c = car1At(o.t);
      const yaw = Number(c.yaw_rad);
      const front = { x: Number(c.x_m) + HALF_LENGTH * Math.cos(yaw), y: Number(c.y_m) + HALF_LENGTH * Math.sin(yaw) };
      expect(Math.hypot(o.x - front.x, o.y - front.y), JSON.stringify({ o, c })).toBeLessThan(0.2);
      if (o.age >= 200) {
        expect(Math.abs(o.vx)).toBeLessThan(0.5);
        expect(Math.abs(o.vy - Number(c.speed_mps))).toBeLessThan(0.5);
      }
    }
    // tracked with one ID from the first sight within 20 m until it passes the crossing
    const near = seen.filter((o) => o.y > 10 - 20 && o.y < 0);
    expect(new Set(near.map((o) => o.id)).size).toBe(1);
    // included at least every second (T_GenCpmMax) and again as soon as it moved 4 m
    const gaps = near.slice(1).map((o, i) => [o.sentAt - near[i].sentAt, Math.hypot(o.x - near[i].x, o.y - near[i].y)]);
    for (const [gap] of gaps) expect(gap).toBeLessThanOrEqual(1 + EPS);
    console.log(
      `[cpm-pcap] car1 in ${seen.length} CPMs, first at ${seen[0].sentAt.toFixed(2)} s; inclusion gaps ${gaps.map(([g, d]) => `${g.toFixed(1)}s/${d.toFixed(1)}m`).join(' ')}`,
    );
  });

  it('includes an object again within 1 s only when it is new, moved more than 4 m or changed speed by more than 0.5 m/s', () => {
    const last = new Map<number, SeenObject>();
    let checked = 0;
    for (const o of cpms.flatMap(objectsOf)) {
      const before = last.get(o.id);
      last.set(o.id, o);
      if (!before) continue;
      const gap = o.sentAt - before.sentAt;
      if (gap >= 1 - EPS || o.age < gap * 1000) continue; // the time rule, or a new object with a reused ID
      const moved = Math.hypot(o.x - before.x, o.y - before.y);
      const speedChange = Math.abs(Math.hypot(o.vx, o.vy) - Math.hypot(before.vx, before.vy));
      // 1 cm and 1 cm/s of rounding in the encoded values
      expect(moved > 4 - 0.03 || speedChange > 0.5 - 0.03, JSON.stringify({ before, o })).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });

  it("car0 brakes on an object of car2's CPMs and stops short of car1; without them it collides", async () => {
    expect(summary.collision).toBe(false);
    const brake = summary.events.find((e) => e.vehicle === 'car0' && e.event === 'brake-sent')!;
    expect(brake.detail).toMatchObject({ about: expect.stringMatching(/^car2\/object\d+$/) });
    expect((brake.detail as { ttc_s: number }).ttc_s).toBeLessThan(1.5);
    const without = await runScenarioSimulated(SCENARIO, {
      runsDir: scratchDir('cavsim-cpm-off-'),
      runId: 'cpm-off',
      overrides: ['vehicles.0.apps.0.perceived=false'],
      mcapByDefault: false,
    });
    expect(without.summary.status).toBe('completed');
    expect(without.summary.collision).toBe(true);
    expect(without.summary.events.filter((e) => e.vehicle === 'car0')).toEqual([]);
    const pair = summary.pairs!.find((p) => p.a === 'car0' && p.b === 'car1')!;
    console.log(
      `[cpm-pcap] with CPM: car0 brakes at ${brake.t_s} s (TTC ${(brake.detail as { ttc_s: number }).ttc_s.toFixed(2)} s), min distance to car1 ${pair.min_distance_m} m; without: collision at ${without.summary.first_collision_t_s} s`,
    );
  }, 60_000);
});

describe('random CPMs, read back by tshark 4.0', () => {
  it('agree with tshark on every field it shows, with no malformed packet', () => {
    const draw = createRandom(103324);
    const int = (lo: number, hi: number) => lo + Math.floor(draw() * (hi - lo + 1));
    const path = join(scratchDir('cavsim-cpm-random-'), 'random.pcap');
    const log = new PcapLog(path);
    const sent: Cpm[] = [];
    for (let i = 0; i < 60; i++) {
      const cpm: Cpm = {
        stationId: int(0, 4294967295),
        generationDeltaTime: int(0, 65535),
        stationType: int(0, 255),
        referencePosition: {
          latitude: int(-900000000, 900000000),
          longitude: int(-1800000000, 1800000000),
          semiMajorConfidence: int(0, 4095),
          semiMinorConfidence: int(0, 4095),
          semiMajorOrientation: int(0, 3601),
          altitudeValue: int(-100000, 800001),
          altitudeConfidence: int(0, 15),
        },
        originatingVehicle: {
          headingValue: int(0, 3601),
          headingConfidence: int(1, 127),
          speedValue: int(0, 16383),
          speedConfidence: int(1, 127),
          yawRate: { value: int(-32766, 32767), confidence: int(0, 8) },
          vehicleWidth: int(1, 62),
        },
        sensors: [
          {
            sensorId: int(0, 255),
            type: int(0, 15),
            vehicleSensor: {
              xSensorOffset: int(-5000, 0),
              ySensorOffset: int(-1000, 1000),
              properties: [{ range: int(0, 10000), horizontalOpeningAngleStart: int(0, 3601), horizontalOpeningAngleEnd: int(0, 3601) }],
            },
          },
        ],
        objects: Array.from({ length: int(1, 12) }, () => ({
          objectId: int(0, 255),
          sensorIds: [int(0, 255)],
          timeOfMeasurement: int(-1500, 1500),
          objectAge: int(0, 1500),
          objectConfidence: int(0, 101),
          xDistance: { value: int(-132768, 132767), confidence: int(0, 102) },
          yDistance: { value: int(-132768, 132767), confidence: int(0, 102) },
          xSpeed: { value: int(-16383, 16383), confidence: int(1, 127) },
          ySpeed: { value: int(-16383, 16383), confidence: int(1, 127) },
          planarObjectDimension1: { value: int(0, 1023), confidence: int(0, 102) },
          dynamicStatus: int(0, 2),
        })),
        numberOfPerceivedObjects: int(0, 255),
      };
      sent.push(cpm);
      const source = {
        stationType: 5,
        mac: stationMac(cpm.stationId),
        timestampMs: i * 100,
        latitude: 0,
        longitude: 0,
        positionAccurate: true,
        speed: 0,
        heading: 0,
      };
      log.add(
        i / 10,
        ethernetFrame(
          BROADCAST_MAC,
          source.mac,
          GN_ETHERTYPE,
          encodeShb({ source, btpPort: 2009, trafficClass: 2, payload: encodeCpm(cpm) }),
        ),
      );
    }
    log.close();
    const fields = [
      'frame.protocols',
      'its.stationID',
      'cpm.generationDeltaTime',
      'cpm.stationType',
      'its.latitude',
      'its.longitude',
      'its.headingValue',
      'its.speedValue',
      'its.yawRateValue',
      'cpm.vehicleWidth',
      'cpm.sensorID',
      'cpm.type',
      'cpm.xSensorOffset',
      'cpm.ySensorOffset',
      'cpm.range',
      'cpm.horizontalOpeningAngleStart',
      'cpm.horizontalOpeningAngleEnd',
      'cpm.objectID',
      'cpm.timeOfMeasurement',
      'cpm.objectAge',
      'cpm.objectConfidence',
      'cpm.value',
      'cpm.confidence',
      'cpm.dynamicStatus',
      'cpm.numberOfPerceivedObjects',
      '_ws.malformed',
      '_ws.expert',
    ];
    const json = execFileSync(TSHARK, ['-r', path, '-T', 'json', ...fields.flatMap((f) => ['-e', f])], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const frames = (JSON.parse(json) as { _source: { layers: Frame['layers'] } }[]).map((p) => ({ t: 0, layers: p._source.layers }));
    expect(frames.length).toBe(sent.length);
    frames.forEach((f, i) => {
      const c = sent[i];
      const v = c.originatingVehicle!;
      const s = c.sensors![0];
      const os = c.objects!;
      expect(f.layers['_ws.malformed'], JSON.stringify(f.layers)).toBeUndefined();
      expect(f.layers['_ws.expert'], JSON.stringify(f.layers)).toBeUndefined();
      expect(f.layers['frame.protocols']![0]).toBe('eth:ethertype:gnw:btpb:its');
      const seen = {
        header: [num(f, 'its.stationID'), num(f, 'cpm.generationDeltaTime'), num(f, 'cpm.stationType')],
        position: [num(f, 'its.latitude'), num(f, 'its.longitude')],
        vehicle: [num(f, 'its.headingValue'), num(f, 'its.speedValue'), num(f, 'its.yawRateValue'), num(f, 'cpm.vehicleWidth')],
        sensor: [
          num(f, 'cpm.sensorID'),
          num(f, 'cpm.type'),
          num(f, 'cpm.xSensorOffset'),
          num(f, 'cpm.ySensorOffset'),
          num(f, 'cpm.range'),
          num(f, 'cpm.horizontalOpeningAngleStart'),
          num(f, 'cpm.horizontalOpeningAngleEnd'),
        ],
        ids: nums(f, 'cpm.objectID'),
        times: nums(f, 'cpm.timeOfMeasurement'),
        ages: nums(f, 'cpm.objectAge'),
        confidences: nums(f, 'cpm.objectConfidence'),
        values: nums(f, 'cpm.value'),
        valueConfidences: nums(f, 'cpm.confidence'),
        status: nums(f, 'cpm.dynamicStatus'),
        count: num(f, 'cpm.numberOfPerceivedObjects'),
      };
      // objectConfidence 0 is its DEFAULT: not encoded, not shown
      expect(seen).toEqual({
        header: [c.stationId, c.generationDeltaTime, c.stationType],
        position: [c.referencePosition.latitude, c.referencePosition.longitude],
        vehicle: [v.headingValue, v.speedValue, v.yawRate!.value, v.vehicleWidth],
        sensor: [
          s.sensorId,
          s.type,
          s.vehicleSensor.xSensorOffset,
          s.vehicleSensor.ySensorOffset,
          s.vehicleSensor.properties[0].range,
          s.vehicleSensor.properties[0].horizontalOpeningAngleStart,
          s.vehicleSensor.properties[0].horizontalOpeningAngleEnd,
        ],
        ids: os.map((o) => o.objectId),
        times: os.map((o) => o.timeOfMeasurement),
        ages: os.map((o) => o.objectAge),
        confidences: os.filter((o) => o.objectConfidence !== 0).map((o) => o.objectConfidence),
        values: os.flatMap((o) => [o.xDistance.value, o.yDistance.value, o.xSpeed.value, o.ySpeed.value, o.planarObjectDimension1!.value]),
        valueConfidences: os.flatMap((o) => [
          o.xDistance.confidence,
          o.yDistance.confidence,
          o.xSpeed.confidence,
          o.ySpeed.confidence,
          o.planarObjectDimension1!.confidence,
        ]),
        status: os.map((o) => o.dynamicStatus),
        count: c.numberOfPerceivedObjects,
      });
    });
  });
});
