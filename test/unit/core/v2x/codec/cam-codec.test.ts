import { describe, expect, it } from 'vitest';
import { type Cam, decodeCam, encodeCam } from '../../../../../src/core/v2x/codec/cam-pdu.js';
import { UperError } from '../../../../../src/core/v2x/codec/uper.js';
import { camOf } from '../../../../../src/core/v2x/facilities/vehicle-state.js';
import { DEFAULT_GEO_REFERENCE } from '../../../../../src/core/v2x/networking/geo-reference.js';
import { createRandom } from '../../../../../src/util/random.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const station = { stationId: 3559379203, stationType: 5, length: 4.5, width: 1.8 };
const state = { t: 1.234, x: 100.5, y: -20.25, yaw: 0.3, v: 13.89, yawRate: 0.05, acceleration: -1.25 };

describe('CAM UPER codec', () => {
  // Bytes that Wireshark 4.0.17 (tshark -V) decodes field by field as this CAM: protocolVersion 2,
  // stationID 3559379203, generationDeltaTime 1234, latitude 436161177, speedValue 1389, ...
  it('encodes the bytes Wireshark decodes (with the low-frequency container)', () => {
    const cam = camOf(state, station, DEFAULT_GEO_REFERENCE, true);
    expect(hex(encodeCam(cam))).toBe('0202d427d10304d24059f486732df0137740020025b030d400002d8002b68002c08a500c23020470000000');
  });

  it('encodes the bytes Wireshark decodes (high-frequency container only)', () => {
    const cam = camOf({ ...state, t: 2.234 }, station, DEFAULT_GEO_REFERENCE, false);
    expect(hex(encodeCam(cam))).toBe('0202d427d10308ba0059f486732df0137740020025b030d400002d8002b68002c08a500c2302047000');
  });

  it('round-trips random valid CAMs', () => {
    const draw = createRandom(33);
    const int = (lo: number, hi: number) => lo + Math.floor(draw() * (hi - lo + 1));
    for (let i = 0; i < 500; i++) {
      const cam: Cam = {
        stationId: int(0, 4294967295),
        generationDeltaTime: int(0, 65535),
        stationType: int(0, 255),
        referencePosition: {
          latitude: int(-900000000, 900000001),
          longitude: int(-1800000000, 1800000001),
          semiMajorConfidence: int(0, 4095),
          semiMinorConfidence: int(0, 4095),
          semiMajorOrientation: int(0, 3601),
          altitudeValue: int(-100000, 800001),
          altitudeConfidence: int(0, 15),
        },
        highFrequency: {
          headingValue: int(0, 3601),
          headingConfidence: int(1, 127),
          speedValue: int(0, 16383),
          speedConfidence: int(1, 127),
          driveDirection: int(0, 2),
          vehicleLengthValue: int(1, 1023),
          vehicleLengthConfidenceIndication: int(0, 4),
          vehicleWidth: int(1, 62),
          longitudinalAccelerationValue: int(-160, 161),
          longitudinalAccelerationConfidence: int(0, 102),
          curvatureValue: int(-1023, 1023),
          curvatureConfidence: int(0, 7),
          curvatureCalculationMode: int(0, 2),
          yawRateValue: int(-32766, 32767),
          yawRateConfidence: int(0, 8),
        },
      };
      if (draw() < 0.5) {
        const points = Array.from({ length: int(0, 40) }, () => {
          const p = { deltaLatitude: int(-131071, 131072), deltaLongitude: int(-131071, 131072), deltaAltitude: int(-12700, 12800) };
          return draw() < 0.5 ? p : { ...p, pathDeltaTime: int(1, 65535) };
        });
        cam.lowFrequency = { vehicleRole: int(0, 15), exteriorLights: int(0, 255), pathHistory: points };
      }
      expect(decodeCam(encodeCam(cam))).toEqual(cam);
    }
  });

  it('throws on values outside their constraints, naming the field', () => {
    const cam = camOf(state, station, DEFAULT_GEO_REFERENCE, true);
    const bad = (change: (c: Cam) => void) => {
      const c = structuredClone(cam);
      change(c);
      return () => encodeCam(c);
    };
    expect(bad((c) => (c.highFrequency.speedValue = 16384))).toThrow(/speedValue = 16384 is outside 0..16383/);
    expect(bad((c) => (c.highFrequency.vehicleWidth = 0))).toThrow(UperError);
    expect(bad((c) => (c.referencePosition.latitude = 900000002))).toThrow(/latitude/);
    expect(bad((c) => (c.highFrequency.curvatureCalculationMode = 3))).toThrow(/curvatureCalculationMode/);
    expect(bad((c) => (c.stationId = 2 ** 32))).toThrow(/stationID/);
    expect(bad((c) => (c.highFrequency.headingValue = 1.5))).toThrow(/headingValue/);
    expect(bad((c) => (c.lowFrequency!.pathHistory = Array(41).fill({ deltaLatitude: 0, deltaLongitude: 0, deltaAltitude: 0 })))).toThrow(
      /pathHistory size = 41/,
    );
  });

  it('refuses truncated input, other messages and extensions it does not know', () => {
    const bytes = encodeCam(camOf(state, station, DEFAULT_GEO_REFERENCE, true));
    expect(() => decodeCam(bytes.slice(0, 20))).toThrow(/truncated/);
    const denm = Uint8Array.from(bytes);
    denm[1] = 1;
    expect(() => decodeCam(denm)).toThrow(/not a CAM/);
    const extended = Uint8Array.from(bytes);
    extended[8] |= 0x80; // camParameters' extension bit follows generationDeltaTime
    expect(() => decodeCam(extended)).toThrow(/extension/);
  });
});
