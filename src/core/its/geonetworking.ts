import { UperError } from './uper.js';

/**
 * GeoNetworking (EN 302 636-4-1 V1.3.1) single-hop broadcast with BTP-B (EN 302 636-5-1) on top:
 * Basic header (4 octets), Common header (8), SHB extended header (the source's long position
 * vector, 24, and 4 reserved octets), BTP-B header (4), then the facility message. No security
 * header: the Basic header's next header is the Common header.
 */
export const GN_ETHERTYPE = 0x8947;
export const GN_BTP_HEADER_BYTES = 4 + 8 + 28 + 4;
export const BTP_PORT_CAM = 2001;

const GN_VERSION = 1;
const NEXT_HEADER_COMMON = 1;
const NEXT_HEADER_BTP_B = 2;
const HEADER_TYPE_TSB = 5;
const SUBTYPE_SINGLE_HOP = 0;
/** LifeTime 1 s (multiplier 1, base 1 s): a single-hop packet is not kept for forwarding anyway. */
const LIFETIME_ONE_SECOND = (1 << 2) | 1;

export interface LongPositionVector {
  stationType: number; // ITS station type, as in the CAM (5 passenger car)
  /** The GN address's 48-bit MID: the station's link-layer address. */
  mac: Uint8Array;
  timestampMs: number; // TAI ms mod 2^32
  latitude: number; // 1e-7 degree
  longitude: number; // 1e-7 degree
  positionAccurate: boolean;
  speed: number; // 0.01 m/s, signed 15 bits
  heading: number; // 0.1 degree clockwise from north, 0..3600
}

export interface ShbPacket {
  source: LongPositionVector;
  btpPort: number;
  /** GN traffic class (store-carry-forward, channel offload and the 6-bit id) as one octet. */
  trafficClass: number;
  payload: Uint8Array;
}

const check = (what: string, value: number, lb: number, ub: number) => {
  if (!Number.isInteger(value) || value < lb || value > ub) throw new UperError(`${what} = ${value} is outside ${lb}..${ub}`);
};

export function encodeShb(packet: ShbPacket): Uint8Array {
  const { source: pv, payload } = packet;
  check('stationType', pv.stationType, 0, 31);
  check('timestamp', pv.timestampMs, 0, 0xffffffff);
  check('latitude', pv.latitude, -900000000, 900000000);
  check('longitude', pv.longitude, -1800000000, 1800000000);
  check('speed', pv.speed, -16384, 16383);
  check('heading', pv.heading, 0, 3600);
  check('btpPort', packet.btpPort, 0, 0xffff);
  check('trafficClass', packet.trafficClass, 0, 0xff);
  if (pv.mac.length !== 6) throw new UperError('a GN address needs a 6-octet MAC');
  const btpLength = 4 + payload.length;
  check('payload length', btpLength, 0, 0xffff);
  const out = new Uint8Array(GN_BTP_HEADER_BYTES + payload.length);
  const view = new DataView(out.buffer);
  // Basic header
  out[0] = (GN_VERSION << 4) | NEXT_HEADER_COMMON;
  out[2] = LIFETIME_ONE_SECOND;
  out[3] = 1; // remaining hop limit
  // Common header
  out[4] = NEXT_HEADER_BTP_B << 4;
  out[5] = (HEADER_TYPE_TSB << 4) | SUBTYPE_SINGLE_HOP;
  out[6] = packet.trafficClass;
  out[7] = 0x80; // flags: mobile station
  view.setUint16(8, btpLength);
  out[10] = 1; // maximum hop limit
  // SHB: source long position vector; GN address = M(1) ST(5) reserved(10) MID(48)
  view.setUint16(12, pv.stationType << 10);
  out.set(pv.mac, 14);
  view.setUint32(20, pv.timestampMs);
  view.setInt32(24, pv.latitude);
  view.setInt32(28, pv.longitude);
  view.setUint16(32, ((pv.positionAccurate ? 1 : 0) << 15) | (pv.speed & 0x7fff));
  view.setUint16(34, pv.heading);
  // 36..39 reserved (media-dependent data)
  view.setUint16(40, packet.btpPort);
  // 42..43 destination port info: 0
  out.set(payload, GN_BTP_HEADER_BYTES);
  return out;
}

export function decodeShb(data: Uint8Array): ShbPacket {
  if (data.length < GN_BTP_HEADER_BYTES) throw new UperError(`a GN SHB packet has at least ${GN_BTP_HEADER_BYTES} octets, got ${data.length}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data[0] >> 4 !== GN_VERSION || (data[0] & 0xf) !== NEXT_HEADER_COMMON) throw new UperError('not an unsecured GeoNetworking v1 packet');
  if (data[4] >> 4 !== NEXT_HEADER_BTP_B) throw new UperError('not BTP-B');
  if (data[5] !== ((HEADER_TYPE_TSB << 4) | SUBTYPE_SINGLE_HOP)) throw new UperError('not a single-hop broadcast');
  const btpLength = view.getUint16(8);
  if (btpLength !== data.length - GN_BTP_HEADER_BYTES + 4) throw new UperError(`GN payload length ${btpLength} does not match the packet's ${data.length - GN_BTP_HEADER_BYTES + 4}`);
  const rawSpeed = view.getUint16(32) & 0x7fff;
  return {
    source: {
      stationType: (view.getUint16(12) >> 10) & 0x1f,
      mac: data.slice(14, 20),
      timestampMs: view.getUint32(20),
      latitude: view.getInt32(24),
      longitude: view.getInt32(28),
      positionAccurate: (data[32] & 0x80) !== 0,
      speed: rawSpeed >= 0x4000 ? rawSpeed - 0x8000 : rawSpeed,
      heading: view.getUint16(34),
    },
    btpPort: view.getUint16(40),
    trafficClass: data[6],
    payload: data.slice(GN_BTP_HEADER_BYTES),
  };
}
