import { describe, expect, it } from 'vitest';
import { DEFAULT_VALIDITY_S, type Denm, decodeDenm, encodeDenm, relevanceDistanceOf } from '../../../../../src/core/v2x/codec/denm-pdu.js';
import { UperError } from '../../../../../src/core/v2x/codec/uper.js';
import {
  type BroadcastPacket,
  decodeBroadcast,
  encodeBroadcast,
  lifetimeField,
  lifetimeMsOf,
} from '../../../../../src/core/v2x/networking/geonetworking.js';
import { stationMac } from '../../../../../src/core/v2x/networking/station-id.js';
import { createRandom } from '../../../../../src/util/random.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Every container and optional field this codec carries, in use. */
const FULL: Denm = {
  stationId: 3559379203,
  management: {
    actionId: { originatingStationId: 3559379203, sequenceNumber: 7 },
    detectionTime: 694224000123,
    referenceTime: 694224000223,
    eventPosition: {
      latitude: 487757910,
      longitude: 91833136,
      semiMajorConfidence: 1,
      semiMinorConfidence: 1,
      semiMajorOrientation: 900,
      altitudeValue: 0,
      altitudeConfidence: 0,
    },
    relevanceDistance: 2,
    relevanceTrafficDirection: 1,
    validityDuration: 2,
    transmissionInterval: 100,
    stationType: 5,
  },
  situation: { informationQuality: 7, eventType: { causeCode: 99, subCauseCode: 1 }, linkedCause: { causeCode: 97, subCauseCode: 1 } },
  location: {
    eventSpeed: { speedValue: 991, speedConfidence: 1 },
    eventPositionHeading: { headingValue: 900, headingConfidence: 1 },
    traces: [[{ deltaLatitude: -100, deltaLongitude: 250, deltaAltitude: 0, pathDeltaTime: 10 }], []],
    roadType: 3,
  },
};

/** A cancellation with only the management container, the default validity and "unavailable" values. */
const CANCELLATION: Denm = {
  stationId: 42,
  management: {
    actionId: { originatingStationId: 42, sequenceNumber: 65535 },
    detectionTime: 4220,
    referenceTime: 4220,
    termination: 0,
    eventPosition: {
      latitude: -336000000,
      longitude: -1800000000,
      semiMajorConfidence: 4095,
      semiMinorConfidence: 4095,
      semiMajorOrientation: 3601,
      altitudeValue: 800001,
      altitudeConfidence: 15,
    },
    validityDuration: DEFAULT_VALIDITY_S,
    stationType: 15,
  },
};

describe('DENM UPER codec', () => {
  // Bytes that Wireshark 4.0.17 (tshark -V, over GN + BTP-B 2002) decodes field by field as FULL:
  // protocolVersion 2, messageID denm (1), stationID 3559379203, actionID 3559379203/7,
  // detectionTime 694224000123, referenceTime 694224000223, eventPosition 487757910 / 91833136,
  // relevanceDistance lessThan200m (2), relevanceTrafficDirection upstreamTraffic (1),
  // validityDuration 2, transmissionInterval 100, stationType passengerCar (5), informationQuality
  // highest (7), eventType dangerousSituation (99) / emergencyElectronicBrakeEngaged (1),
  // linkedCause collisionRisk (97) / longitudinalCollisionRisk (1), eventSpeed 991, heading 900,
  // traces of 2 (one point -100 / 250 / 0 / 10, none), roadType nonUrban-WithStructuralSeparation (3).
  it('encodes the bytes Wireshark decodes (every optional field)', () => {
    expect(hex(encodeDenm(FULL))).toBe(
      '0201d427d103c7ea13e881800394345f328f650d17cca6fd2b7815670c31530001001384186a00480008063055cc602610170f7c01c20020dff9b803e58ce000240c',
    );
  });

  // ... and as CANCELLATION: stationID 42, actionID 42/65535, detectionTime = referenceTime 4220,
  // termination isCancellation (0), latitude -336000000, longitude -1800000000, confidences and
  // altitude unavailable, no validityDuration (its default, 600 s, is not encoded), roadSideUnit (15).
  it('encodes the bytes Wireshark decodes (a cancellation, management container only)', () => {
    expect(hex(encodeDenm(CANCELLATION))).toBe('02010000002a08000000157fff800000020f8000000083e10cefa80000000007ffffff08eddd0f8780');
    expect(decodeDenm(encodeDenm(CANCELLATION))).toEqual(CANCELLATION);
    expect(decodeDenm(encodeDenm(FULL))).toEqual(FULL);
  });

  it('round-trips random valid DENMs', () => {
    const draw = createRandom(302637);
    const int = (lo: number, hi: number) => lo + Math.floor(draw() * (hi - lo + 1));
    const maybe = <T>(make: () => T): T | undefined => (draw() < 0.5 ? make() : undefined);
    const cause = () => ({ causeCode: int(0, 255), subCauseCode: int(0, 255) });
    for (let i = 0; i < 500; i++) {
      const m: Denm['management'] = {
        actionId: { originatingStationId: int(0, 4294967295), sequenceNumber: int(0, 65535) },
        detectionTime: int(0, 4398046511103),
        referenceTime: int(0, 4398046511103),
        eventPosition: {
          latitude: int(-900000000, 900000001),
          longitude: int(-1800000000, 1800000001),
          semiMajorConfidence: int(0, 4095),
          semiMinorConfidence: int(0, 4095),
          semiMajorOrientation: int(0, 3601),
          altitudeValue: int(-100000, 800001),
          altitudeConfidence: int(0, 15),
        },
        validityDuration: draw() < 0.3 ? DEFAULT_VALIDITY_S : int(0, 86400),
        stationType: int(0, 255),
      };
      const optional = {
        termination: maybe(() => int(0, 1)),
        relevanceDistance: maybe(() => int(0, 7)),
        relevanceTrafficDirection: maybe(() => int(0, 3)),
        transmissionInterval: maybe(() => int(1, 10000)),
      };
      for (const [k, v] of Object.entries(optional)) if (v !== undefined) Object.assign(m, { [k]: v });
      const denm: Denm = { stationId: int(0, 4294967295), management: m };
      if (draw() < 0.7) {
        denm.situation = { informationQuality: int(0, 7), eventType: cause() };
        if (draw() < 0.5) denm.situation.linkedCause = cause();
      }
      if (draw() < 0.7) {
        const traces = Array.from({ length: int(1, 7) }, () =>
          Array.from({ length: int(0, 40) }, () => {
            const p = { deltaLatitude: int(-131071, 131072), deltaLongitude: int(-131071, 131072), deltaAltitude: int(-12700, 12800) };
            return draw() < 0.5 ? p : { ...p, pathDeltaTime: int(1, 65535) };
          }),
        );
        denm.location = { traces };
        const speed = maybe(() => ({ speedValue: int(0, 16383), speedConfidence: int(1, 127) }));
        const heading = maybe(() => ({ headingValue: int(0, 3601), headingConfidence: int(1, 127) }));
        const roadType = maybe(() => int(0, 3));
        if (speed) denm.location.eventSpeed = speed;
        if (heading) denm.location.eventPositionHeading = heading;
        if (roadType !== undefined) denm.location.roadType = roadType;
      }
      expect(decodeDenm(encodeDenm(denm))).toEqual(denm);
    }
  });

  it('throws on values outside their constraints, naming the field', () => {
    const bad = (change: (d: Denm) => void) => {
      const d = structuredClone(FULL);
      change(d);
      return () => encodeDenm(d);
    };
    expect(bad((d) => (d.management.detectionTime = 2 ** 42))).toThrow(/detectionTime = 4398046511104 is outside/);
    expect(bad((d) => (d.management.actionId.sequenceNumber = 65536))).toThrow(/sequenceNumber/);
    expect(bad((d) => (d.management.validityDuration = 86401))).toThrow(/validityDuration/);
    expect(bad((d) => (d.management.transmissionInterval = 0))).toThrow(/transmissionInterval/);
    expect(bad((d) => (d.management.relevanceDistance = 8))).toThrow(/relevanceDistance/);
    expect(bad((d) => (d.management.termination = 2))).toThrow(/termination/);
    expect(bad((d) => (d.situation!.eventType.causeCode = 256))).toThrow(/eventType.causeCode/);
    expect(bad((d) => (d.situation!.informationQuality = 8))).toThrow(UperError);
    expect(bad((d) => (d.location!.traces = []))).toThrow(/traces size = 0/);
    expect(bad((d) => (d.location!.traces = Array(8).fill([])))).toThrow(/traces size = 8/);
  });

  it('refuses truncated input, other messages and containers it does not carry', () => {
    const bytes = encodeDenm(FULL);
    expect(() => decodeDenm(bytes.slice(0, 30))).toThrow(/truncated/);
    const cam = Uint8Array.from(bytes);
    cam[1] = 2;
    expect(() => decodeDenm(cam)).toThrow(/not a DENM/);
    const withAlacarte = Uint8Array.from(bytes);
    withAlacarte[6] |= 0x20; // the third presence bit after the 6-octet header: alacarte
    expect(() => decodeDenm(withAlacarte)).toThrow(/alacarte/);
    const extended = Uint8Array.from(bytes);
    extended[6] |= 0x10; // then the management container's extension bit
    expect(() => decodeDenm(extended)).toThrow(/extension/);
  });

  it('classes relevance distances as RelevanceDistance does', () => {
    expect([10, 50, 51, 200, 201, 1000, 5000, 10000, 10001].map(relevanceDistanceOf)).toEqual([0, 0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('GeoNetworking GeoBroadcast and TSB + BTP-B', () => {
  const source = {
    stationType: 5,
    mac: stationMac(3559379203),
    timestampMs: 4220,
    latitude: 487757910,
    longitude: 91833136,
    positionAccurate: true,
    speed: 991,
    heading: 900,
  };
  const gbc: BroadcastPacket = {
    source,
    sequenceNumber: 3,
    btpPort: 2002,
    trafficClass: 0,
    lifetimeMs: 2000,
    hopLimit: 10,
    area: { latitude: 487757910, longitude: 91833136, radius: 200 },
    payload: encodeDenm(FULL),
  };

  // Wireshark 4.0.17 decodes these headers as Basic (v1, LT 40 x 50 ms, RHL 10), Common (BTP-B,
  // "Geo-scoped Broadcast Circular area" 0x40 / "TSB Multi-hop" 0x51, TC 0, mobile, MHL 10), the
  // GBC/TSB extended header (SN 3, source position vector, area centre and radius 200 m) and BTP-B 2002.
  it('writes the headers Wireshark decodes', () => {
    const g = encodeBroadcast(gbc);
    expect(hex(g.slice(0, g.length - gbc.payload.length))).toBe(
      '1100a00a2040008000460a000003000014000200d427d1030000107c1d1298560579433083df03841d1298560579433000c800000000000007d20000',
    );
    const payload = encodeDenm(CANCELLATION);
    const t = encodeBroadcast({ ...gbc, area: undefined, source: { ...source, mac: stationMac(42) }, payload });
    expect(hex(t.slice(0, t.length - payload.length))).toBe(
      '1100a00a20510080002d0a0000030000140002000000002a0000107c1d1298560579433083df038407d20000',
    );
  });

  it('round-trips, and rejects what it cannot be', () => {
    expect(decodeBroadcast(encodeBroadcast(gbc))).toEqual(gbc);
    const { area: _, ...tsb } = gbc;
    expect(decodeBroadcast(encodeBroadcast(tsb))).toEqual(tsb);
    const bytes = encodeBroadcast(gbc);
    expect(() => decodeBroadcast(bytes.slice(0, 40))).toThrow(/at least/);
    expect(() => decodeBroadcast(bytes.slice(0, bytes.length - 1))).toThrow(/payload length/);
    const shb = Uint8Array.from(bytes);
    shb[5] = 0x50;
    expect(() => decodeBroadcast(shb)).toThrow(/neither/);
    expect(() => encodeBroadcast({ ...gbc, hopLimit: 0 })).toThrow(/hopLimit/);
    expect(() => encodeBroadcast({ ...gbc, area: { ...gbc.area!, radius: 70000 } })).toThrow(/radius/);
  });

  it('encodes lifetimes with the smallest base that holds them', () => {
    expect([50, 2000, 3150, 60_000, 600_000].map((ms) => lifetimeMsOf(lifetimeField(ms)))).toEqual([50, 2000, 3150, 60_000, 600_000]);
    expect(lifetimeField(2000)).toBe((40 << 2) | 0);
    expect(lifetimeField(60_000)).toBe((60 << 2) | 1);
    expect(() => lifetimeField(0)).toThrow(/lifetime/);
    expect(() => lifetimeField(7_000_000)).toThrow(/lifetime/);
  });
});
