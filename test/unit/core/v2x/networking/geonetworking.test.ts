import { describe, expect, it } from 'vitest';
import { generationTime, positionVectorOf } from '../../../../../src/core/v2x/facilities/vehicle-state.js';
import {
  DEFAULT_GEO_REFERENCE,
  headingDegrees,
  toLatLon,
  toMapXY,
  yawOfHeading,
} from '../../../../../src/core/v2x/networking/geo-reference.js';
import { decodeShb, encodeShb, GN_BTP_HEADER_BYTES, type ShbPacket } from '../../../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf, stationMac } from '../../../../../src/core/v2x/networking/station-id.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('GeoNetworking SHB + BTP-B', () => {
  const packet: ShbPacket = {
    source: positionVectorOf(
      { t: 1.234, x: 100.5, y: -20.25, yaw: 0.3, v: 13.89 },
      { stationId: 3559379203, stationType: 5 },
      DEFAULT_GEO_REFERENCE,
    ),
    btpPort: 2001,
    trafficClass: 2,
    payload: Uint8Array.from([1, 2, 3]),
  };

  // The headers Wireshark 4.0.17 decodes as Basic (v1, LT 1 s, RHL 1), Common (BTP-B, SHB, TC 2,
  // mobile, PL 47 there), the source position vector and BTP-B port 2001.
  it('writes the headers Wireshark decodes', () => {
    expect(hex(encodeShb(packet)).slice(0, GN_BTP_HEADER_BYTES * 2)).toBe(
      '110005012050028000070100' + '14000200d427d103000004d219ff4a990436c9ba856d02d8' + '00000000' + '07d10000',
    );
  });

  it('round-trips, and rejects what it cannot be', () => {
    const bytes = encodeShb(packet);
    expect(decodeShb(bytes)).toEqual(packet);
    expect(decodeShb(encodeShb({ ...packet, source: { ...packet.source, speed: -250 } })).source.speed).toBe(-250);
    expect(() => decodeShb(bytes.slice(0, 30))).toThrow(/at least/);
    expect(() => decodeShb(bytes.slice(0, bytes.length - 1))).toThrow(/payload length/);
    expect(() => encodeShb({ ...packet, source: { ...packet.source, heading: 3601 } })).toThrow(/heading/);
  });
});

describe('stations and places', () => {
  it('gives each name a stable ID and a locally administered MAC carrying it', () => {
    expect(stationIdOf('car0')).toBe(3559379203);
    expect(stationIdOf('car1')).not.toBe(stationIdOf('car0'));
    expect(hex(stationMac(stationIdOf('car0')))).toBe('0200d427d103');
  });

  it('maps XY to latitude/longitude and back within a millimetre', () => {
    for (const [x, y] of [
      [0, 0],
      [1000, -2000],
      [-3500, 800],
    ]) {
      const { lat, lon } = toLatLon(DEFAULT_GEO_REFERENCE, x, y);
      const back = toMapXY(DEFAULT_GEO_REFERENCE, lat, lon);
      expect(Math.abs(back.x - x) + Math.abs(back.y - y)).toBeLessThan(1e-3);
    }
    // one degree of latitude is about 111.1 km at 43.6 N
    expect(toLatLon(DEFAULT_GEO_REFERENCE, 0, 111_100).lat - DEFAULT_GEO_REFERENCE.lat).toBeCloseTo(1, 2);
  });

  it('turns map yaw (counter-clockwise from east) into ETSI heading (clockwise from north)', () => {
    expect(headingDegrees(0)).toBeCloseTo(90);
    expect(headingDegrees(Math.PI / 2)).toBeCloseTo(0);
    expect(headingDegrees(-Math.PI / 2)).toBeCloseTo(180);
    expect(Math.abs(yawOfHeading(270))).toBeCloseTo(Math.PI);
    expect(yawOfHeading(45)).toBeCloseTo(Math.PI / 4);
  });

  it('recovers a generation time from generationDeltaTime', () => {
    expect(generationTime(1234, 1.3)).toBeCloseTo(1.234);
    expect(generationTime(65535, 65.6)).toBeCloseTo(65.535);
    expect(generationTime(10, 65.6)).toBeCloseTo(65.546);
  });
});
