import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { DEFAULT_VALIDITY_S, type Denm, encodeDenm } from '../../../src/core/v2x/codec/denm-pdu.js';
import { toLatLon } from '../../../src/core/v2x/networking/geo-reference.js';
import { encodeBroadcast, GN_ETHERTYPE, GN_GBC_BTP_HEADER_BYTES } from '../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf, stationMac } from '../../../src/core/v2x/networking/station-id.js';
import { BROADCAST_MAC, ethernetFrame, PCAP_EPOCH_UNIX_S, PcapLog } from '../../../src/measurement/pcap-log.js';
import { createRandom } from '../../../src/util/random.js';
import { requireReal, tsharkProblem } from '../../support/real-components.js';
import { scratchDir } from '../../support/scratch-dir.js';

/**
 * scenarios/hard-braking-denm.yaml in virtual time, its v2v.pcap decoded by Wireshark's own
 * dissectors (tshark): the leader's DENMs after its hard brake (cause 99/1, its station ID, the
 * event where vehicles.csv has it), repeated every 100 ms, then cancelled when it stops; the
 * follower brakes on the first. And random DENMs written to a pcap, read back by tshark field by
 * field: an encoder independent of ours agrees on every value.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const real = requireReal('v2x/denm-pcap.test.ts', tsharkProblem());
const FIELDS = [
  'frame.time_epoch',
  'frame.protocols',
  'frame.len',
  'its.protocolVersion',
  'its.messageID',
  'its.stationID',
  'its.originatingStationID',
  'its.sequenceNumber',
  'denm.detectionTime',
  'denm.referenceTime',
  'denm.termination',
  'denm.validityDuration',
  'denm.transmissionInterval',
  'its.causeCode',
  'its.subCauseCode',
  'its.latitude',
  'its.longitude',
  'geonw.ch.htype',
  'geonw.gxc.latitude',
  'geonw.gxc.longitude',
  'geonw.gxc.radius',
  'geonw.seq_num',
  'btpb.dstport',
  '_ws.expert',
  '_ws.malformed',
];
const REF = { lat: 48.7758, lon: 9.1829 };

interface Frame {
  t: number;
  layers: Record<string, string[] | undefined>;
}

const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];
const num = (f: Frame, field: string) => Number(f.layers[field]![0]);
function tshark(pcap: string): Frame[] {
  const json = execFileSync('tshark', ['-r', pcap, '-T', 'json', ...FIELDS.flatMap((f) => ['-e', f])], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(json) as { _source: { layers: Frame['layers'] } }[]).map((p) => ({
    layers: p._source.layers,
    t: Number(p._source.layers['frame.time_epoch']![0]) - PCAP_EPOCH_UNIX_S,
  }));
}

describe.skipIf(real.skip)('DENMs in v2v.pcap, decoded by tshark', () => {
  let frames: Frame[];
  let runDir: string;
  let summary: Awaited<ReturnType<typeof runScenarioSimulated>>['summary'];
  beforeAll(async () => {
    real.assertPresent();
    const run = await runScenarioSimulated(join(ROOT, 'scenarios/hard-braking-denm.yaml'), {
      runsDir: scratchDir('cavsim-denm-'),
      runId: 'denm',
      overrides: ['network.engine=builtin'],
      mcapByDefault: false,
    });
    expect(run.summary.status, run.summary.reason).toBe('completed');
    runDir = run.runDir;
    summary = run.summary;
    frames = tshark(join(runDir, 'v2v.pcap'));
  }, 60_000);

  it('decodes every frame as a well-formed GeoNetworking GBC / BTP-B 2002 / DENM, one per message sent, of its encoded size', () => {
    const sent = rows(runDir, 'v2v.csv');
    expect(frames.length).toBe(new Set(sent.map((r) => r.id)).size);
    expect(frames.length).toBeGreaterThan(10);
    for (const f of frames) {
      expect(f.layers['_ws.malformed'], JSON.stringify(f.layers)).toBeUndefined();
      expect(f.layers['_ws.expert'], JSON.stringify(f.layers)).toBeUndefined();
      expect(f.layers['frame.protocols']![0]).toBe('eth:ethertype:gnw:btpb:its');
      expect([num(f, 'its.protocolVersion'), num(f, 'its.messageID'), num(f, 'btpb.dstport')]).toEqual([2, 1, 2002]);
      expect(f.layers['geonw.ch.htype']![0]).toBe('0x40'); // GeoBroadcast, circle
    }
    // v2v.csv's sizes are the GeoNetworking packets' (the frame less its 14-octet Ethernet header)
    const sizeById = new Map(sent.map((r) => [r.id, Number(r.size_bytes)]));
    expect(new Set(sizeById.values())).toEqual(new Set(frames.map((f) => num(f, 'frame.len') - 14)));
    console.log(
      `[denm-pcap] GN packet sizes ${[...new Set(sizeById.values())].join(', ')} B (DENM ${[...new Set(sizeById.values())].map((s) => s - GN_GBC_BTP_HEADER_BYTES).join(', ')} B)`,
    );
  });

  it("carries cause 99/1 after the leader's hard brake, its station ID, and the event where vehicles.csv has the car", () => {
    const brake = summary.events.find((e) => e.event === 'scripted-event')!.t_s;
    const first = frames[0];
    expect(first.t).toBeGreaterThan(brake);
    expect(first.t - brake).toBeLessThanOrEqual(0.05); // the first ticks of the brake
    expect([num(first, 'its.causeCode'), num(first, 'its.subCauseCode')]).toEqual([99, 1]);
    for (const f of frames) {
      expect(num(f, 'its.stationID')).toBe(stationIdOf('car0'));
      expect(num(f, 'its.originatingStationID')).toBe(stationIdOf('car0'));
      expect(num(f, 'its.sequenceNumber')).toBe(0); // one event, one actionID
    }
    expect(num(first, 'denm.detectionTime')).toBe(Math.round(first.t * 1000));
    const car0 = rows(runDir, 'vehicles.csv').filter((r) => r.vehicle === 'car0');
    const at = car0.find((r) => Math.abs(Number(r.t_s) - first.t) < 1e-6)!;
    const { lat, lon } = toLatLon(REF, Number(at.x_m), Number(at.y_m));
    expect(Math.abs(num(first, 'its.latitude') - Math.round(lat * 1e7))).toBeLessThanOrEqual(1);
    expect(Math.abs(num(first, 'its.longitude') - Math.round(lon * 1e7))).toBeLessThanOrEqual(1);
    // the GeoBroadcast area: 200 m (lessThan200m) around the event
    expect([num(first, 'geonw.gxc.latitude'), num(first, 'geonw.gxc.longitude'), num(first, 'geonw.gxc.radius')]).toEqual([
      num(first, 'its.latitude'),
      num(first, 'its.longitude'),
      200,
    ]);
  });

  it('repeats the DENM every 100 ms until the car stops, then repeats its cancellation', () => {
    const news = frames.filter((f) => f.layers['denm.termination'] === undefined);
    const cancels = frames.filter((f) => f.layers['denm.termination'] !== undefined);
    expect(news.length).toBeGreaterThan(5);
    expect(cancels.length).toBeGreaterThan(5);
    expect(Math.max(...news.map((f) => f.t))).toBeLessThan(Math.min(...cancels.map((f) => f.t)));
    const gaps = (fs: Frame[]) => fs.slice(1).map((f, i) => f.t - fs[i].t);
    for (const g of [...gaps(news), ...gaps(cancels)]) expect(g).toBeCloseTo(0.1, 6);
    for (const f of news) {
      expect(num(f, 'denm.referenceTime')).toBe(num(news[0], 'denm.referenceTime'));
      expect([num(f, 'denm.transmissionInterval'), num(f, 'denm.validityDuration')]).toEqual([100, 2]);
    }
    expect(num(cancels[0], 'denm.termination')).toBe(0); // isCancellation
    expect(num(cancels[0], 'denm.referenceTime')).toBe(Math.round(cancels[0].t * 1000));
    // the cancellation comes when vehicles.csv has the leader stopped
    const car0 = rows(runDir, 'vehicles.csv').filter((r) => r.vehicle === 'car0');
    const at = car0.find((r) => Math.abs(Number(r.t_s) - cancels[0].t) < 1e-6)!;
    expect(Math.abs(Number(at.speed_mps))).toBeLessThan(0.05);
    const before = car0.find((r) => Math.abs(Number(r.t_s) - news.at(-1)!.t) < 1e-6)!;
    expect(Number(before.speed_mps)).toBeGreaterThan(0.05);
    // each copy a new GN packet: sequence numbers 0, 1, 2, ...
    expect(frames.map((f) => Number(f.layers['geonw.seq_num']![0]))).toEqual(frames.map((_, i) => i));
  });

  it("the follower brakes on the leader's first DENM, and they stop apart", () => {
    expect(summary.collision).toBe(false);
    const events = summary.events.map((e) => `${e.vehicle} ${e.event}`);
    expect(events).toEqual([
      'car0 scripted-event',
      'car0 denm-triggered',
      'car1 warning-received',
      'car1 emergency-brake',
      'car0 denm-cancelled',
    ]);
    const triggered = summary.events.find((e) => e.event === 'denm-triggered')!.t_s;
    const received = summary.events.find((e) => e.event === 'warning-received')!;
    expect(received.detail).toMatchObject({ format: 'denm', cause: 99, sub_cause: 1, detected_s: triggered });
    const first = rows(runDir, 'v2v.csv')[0];
    expect(Number(first.sent_s)).toBeCloseTo(frames[0].t, 6);
    expect(first.outcome).toBe('delivered');
    // delivered after the channel's 10 ms, acted on at the follower's next 10 ms control tick
    expect(Number(first.received_s) - triggered).toBeGreaterThanOrEqual(0.01);
    expect(received.t_s - triggered).toBeGreaterThanOrEqual(Number(first.received_s) - triggered);
    expect(received.t_s - Number(first.received_s)).toBeLessThan(0.01 + 1e-9);
    console.log(
      `[denm-pcap] event at ${triggered} s, DENM received ${((Number(first.received_s) - triggered) * 1000).toFixed(1)} ms later, follower brakes ${((received.t_s - triggered) * 1000).toFixed(0)} ms after the event; ${frames.length} frames`,
    );
  });
});

describe.skipIf(real.skip)('random DENMs, read back by tshark', () => {
  it('agree with tshark on every field it shows', () => {
    real.assertPresent();
    const draw = createRandom(3026373);
    const int = (lo: number, hi: number) => lo + Math.floor(draw() * (hi - lo + 1));
    const path = join(scratchDir('cavsim-denm-random-'), 'random.pcap');
    const log = new PcapLog(path);
    const denms: Denm[] = [];
    for (let i = 0; i < 60; i++) {
      const stationId = int(0, 4294967295);
      const denm: Denm = {
        stationId,
        management: {
          actionId: { originatingStationId: int(0, 4294967295), sequenceNumber: int(0, 65535) },
          detectionTime: int(0, 2 ** 40),
          referenceTime: int(0, 2 ** 40),
          eventPosition: {
            latitude: int(-900000000, 900000000),
            longitude: int(-1800000000, 1800000000),
            semiMajorConfidence: int(0, 4095),
            semiMinorConfidence: int(0, 4095),
            semiMajorOrientation: int(0, 3601),
            altitudeValue: int(-100000, 800001),
            altitudeConfidence: int(0, 15),
          },
          validityDuration: draw() < 0.3 ? DEFAULT_VALIDITY_S : int(0, 86400),
          transmissionInterval: int(1, 10000),
          stationType: int(0, 255),
          ...(draw() < 0.5 ? { termination: int(0, 1) } : {}),
        },
        situation: { informationQuality: int(0, 7), eventType: { causeCode: int(0, 255), subCauseCode: int(0, 255) } },
        location: { eventSpeed: { speedValue: int(0, 16383), speedConfidence: int(1, 127) }, traces: [[]] },
      };
      denms.push(denm);
      const source = {
        stationType: 5,
        mac: stationMac(stationId),
        timestampMs: i * 100,
        latitude: 0,
        longitude: 0,
        positionAccurate: true,
        speed: 0,
        heading: 0,
      };
      const packet = encodeBroadcast({
        source,
        sequenceNumber: i,
        btpPort: 2002,
        trafficClass: 0,
        lifetimeMs: 1000,
        hopLimit: 10,
        area: {
          latitude: denm.management.eventPosition.latitude,
          longitude: denm.management.eventPosition.longitude,
          radius: int(0, 65535),
        },
        payload: encodeDenm(denm),
      });
      log.add(i / 10, ethernetFrame(BROADCAST_MAC, source.mac, GN_ETHERTYPE, packet));
    }
    log.close();
    const frames = tshark(path);
    expect(frames.length).toBe(denms.length);
    frames.forEach((f, i) => {
      const d = denms[i];
      const m = d.management;
      expect(f.layers['_ws.malformed'], JSON.stringify(f.layers)).toBeUndefined();
      expect(f.layers['frame.protocols']![0]).toBe('eth:ethertype:gnw:btpb:its');
      const seen = {
        stationID: num(f, 'its.stationID'),
        actionID: [num(f, 'its.originatingStationID'), num(f, 'its.sequenceNumber')],
        times: [num(f, 'denm.detectionTime'), num(f, 'denm.referenceTime')],
        termination: f.layers['denm.termination'] ? num(f, 'denm.termination') : undefined,
        position: [num(f, 'its.latitude'), num(f, 'its.longitude')],
        validity: f.layers['denm.validityDuration'] ? num(f, 'denm.validityDuration') : DEFAULT_VALIDITY_S,
        interval: num(f, 'denm.transmissionInterval'),
        cause: [num(f, 'its.causeCode'), num(f, 'its.subCauseCode')],
      };
      expect(seen).toEqual({
        stationID: d.stationId,
        actionID: [m.actionId.originatingStationId, m.actionId.sequenceNumber],
        times: [m.detectionTime, m.referenceTime],
        termination: m.termination,
        position: [m.eventPosition.latitude, m.eventPosition.longitude],
        validity: m.validityDuration,
        interval: m.transmissionInterval,
        cause: [d.situation!.eventType.causeCode, d.situation!.eventType.subCauseCode],
      });
    });
  });
});
