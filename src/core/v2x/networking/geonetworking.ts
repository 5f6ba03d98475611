import { UperError } from '../codec/uper.js';

/**
 * GeoNetworking (EN 302 636-4-1 V1.3.1) single-hop broadcast with BTP-B (EN 302 636-5-1) on top:
 * Basic header (4 octets), Common header (8), SHB extended header (the source's long position
 * vector, 24, and 4 reserved octets), BTP-B header (4), then the facility message. No security
 * header: the Basic header's next header is the Common header.
 */
export const GN_ETHERTYPE = 0x8947;
export const GN_BTP_HEADER_BYTES = 4 + 8 + 28 + 4;
export const BTP_PORT_CAM = 2001;
/** BTP-B port of CPMs (TS 103 248: CPS, 2009). */
export const BTP_PORT_CPM = 2009;

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
  if (data.length < GN_BTP_HEADER_BYTES)
    throw new UperError(`a GN SHB packet has at least ${GN_BTP_HEADER_BYTES} octets, got ${data.length}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data[0] >> 4 !== GN_VERSION || (data[0] & 0xf) !== NEXT_HEADER_COMMON)
    throw new UperError('not an unsecured GeoNetworking v1 packet');
  if (data[4] >> 4 !== NEXT_HEADER_BTP_B) throw new UperError('not BTP-B');
  if (data[5] !== ((HEADER_TYPE_TSB << 4) | SUBTYPE_SINGLE_HOP)) throw new UperError('not a single-hop broadcast');
  const btpLength = view.getUint16(8);
  if (btpLength !== data.length - GN_BTP_HEADER_BYTES + 4)
    throw new UperError(`GN payload length ${btpLength} does not match the packet's ${data.length - GN_BTP_HEADER_BYTES + 4}`);
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

/**
 * Multi-hop broadcasts, for DENMs (EN 302 637-3 6.1.4: a DENM is geo-broadcast to its relevance
 * area, or topologically-scoped broadcast): GeoBroadcast to a circle (header type 4, subtype 0;
 * extended header 44 octets: sequence number, reserved, source long position vector, the area's
 * centre latitude/longitude, distance a = the radius, distance b, angle, reserved) or
 * topologically-scoped broadcast (header type 5, subtype 1; extended header 28 octets: sequence
 * number, reserved, source long position vector), both with BTP-B on top. cavsim's channel does
 * not forward: every car in range receives the sender's frame, and GN delivers a GeoBroadcast
 * only to the cars inside its area (insideArea).
 */
export const BTP_PORT_DENM = 2002;
const HEADER_TYPE_GBC = 4;
const SUBTYPE_CIRCLE = 0;
const SUBTYPE_MULTI_HOP = 1;
const GBC_EXTENDED_BYTES = 44;
const TSB_EXTENDED_BYTES = 28;
/** Basic, Common and GBC headers and BTP-B: what a DENM's GN packet adds to it. */
export const GN_GBC_BTP_HEADER_BYTES = 4 + 8 + GBC_EXTENDED_BYTES + 4;
/** LifeTime's bases (EN 302 636-4-1 9.6.4): 50 ms, 1 s, 10 s, 100 s. */
const LIFETIME_BASES_MS = [50, 1000, 10000, 100000];

export interface CircularArea {
  latitude: number; // 1e-7 degree
  longitude: number; // 1e-7 degree
  radius: number; // m
}

export interface BroadcastPacket {
  source: LongPositionVector;
  sequenceNumber: number;
  btpPort: number;
  trafficClass: number;
  /** The packet's lifetime [ms], rounded to what the LifeTime field can say (at most 6300 s). */
  lifetimeMs: number;
  /** Maximum (and, as sent, remaining) hop limit. */
  hopLimit: number;
  /** Present: GeoBroadcast to this circle; absent: topologically-scoped broadcast. */
  area?: CircularArea;
  payload: Uint8Array;
}

/** LifeTime octet: multiplier (6 bits) and base (2 bits), the smallest base that holds the lifetime. */
export function lifetimeField(ms: number): number {
  const base = LIFETIME_BASES_MS.findIndex((b) => Math.round(ms / b) <= 63);
  if (base < 0 || ms <= 0) throw new UperError(`GN lifetime ${ms} ms is outside 50 ms..6300 s`);
  return (Math.max(1, Math.round(ms / LIFETIME_BASES_MS[base])) << 2) | base;
}

export const lifetimeMsOf = (field: number) => (field >> 2) * LIFETIME_BASES_MS[field & 3];

function writeLongPositionVector(view: DataView, out: Uint8Array, at: number, pv: LongPositionVector): void {
  check('stationType', pv.stationType, 0, 31);
  check('timestamp', pv.timestampMs, 0, 0xffffffff);
  check('latitude', pv.latitude, -900000000, 900000000);
  check('longitude', pv.longitude, -1800000000, 1800000000);
  check('speed', pv.speed, -16384, 16383);
  check('heading', pv.heading, 0, 3600);
  if (pv.mac.length !== 6) throw new UperError('a GN address needs a 6-octet MAC');
  view.setUint16(at, pv.stationType << 10); // GN address: M(1) ST(5) reserved(10) MID(48)
  out.set(pv.mac, at + 2);
  view.setUint32(at + 8, pv.timestampMs);
  view.setInt32(at + 12, pv.latitude);
  view.setInt32(at + 16, pv.longitude);
  view.setUint16(at + 20, ((pv.positionAccurate ? 1 : 0) << 15) | (pv.speed & 0x7fff));
  view.setUint16(at + 22, pv.heading);
}

function readLongPositionVector(view: DataView, data: Uint8Array, at: number): LongPositionVector {
  const rawSpeed = view.getUint16(at + 20) & 0x7fff;
  return {
    stationType: (view.getUint16(at) >> 10) & 0x1f,
    mac: data.slice(at + 2, at + 8),
    timestampMs: view.getUint32(at + 8),
    latitude: view.getInt32(at + 12),
    longitude: view.getInt32(at + 16),
    positionAccurate: (data[at + 20] & 0x80) !== 0,
    speed: rawSpeed >= 0x4000 ? rawSpeed - 0x8000 : rawSpeed,
    heading: view.getUint16(at + 22),
  };
}

export function encodeBroadcast(packet: BroadcastPacket): Uint8Array {
  const { area, payload } = packet;
  check('sequenceNumber', packet.sequenceNumber, 0, 0xffff);
  check('btpPort', packet.btpPort, 0, 0xffff);
  check('trafficClass', packet.trafficClass, 0, 0xff);
  check('hopLimit', packet.hopLimit, 1, 0xff);
  if (area) {
    check('area latitude', area.latitude, -900000000, 900000000);
    check('area longitude', area.longitude, -1800000000, 1800000000);
    check('area radius', area.radius, 0, 0xffff);
  }
  const btpLength = 4 + payload.length;
  check('payload length', btpLength, 0, 0xffff);
  const headerBytes = 4 + 8 + (area ? GBC_EXTENDED_BYTES : TSB_EXTENDED_BYTES);
  const out = new Uint8Array(headerBytes + btpLength);
  const view = new DataView(out.buffer);
  // Basic header
  out[0] = (GN_VERSION << 4) | NEXT_HEADER_COMMON;
  out[2] = lifetimeField(packet.lifetimeMs);
  out[3] = packet.hopLimit;
  // Common header
  out[4] = NEXT_HEADER_BTP_B << 4;
  out[5] = area ? (HEADER_TYPE_GBC << 4) | SUBTYPE_CIRCLE : (HEADER_TYPE_TSB << 4) | SUBTYPE_MULTI_HOP;
  out[6] = packet.trafficClass;
  out[7] = 0x80; // flags: mobile station
  view.setUint16(8, btpLength);
  out[10] = packet.hopLimit;
  // Extended header: sequence number, reserved, source long position vector [, area]
  view.setUint16(12, packet.sequenceNumber);
  writeLongPositionVector(view, out, 16, packet.source);
  if (area) {
    view.setInt32(40, area.latitude);
    view.setInt32(44, area.longitude);
    view.setUint16(48, area.radius); // distance a; b and the angle are 0 for a circle
  }
  view.setUint16(headerBytes, packet.btpPort); // BTP-B: destination port, destination port info 0
  out.set(payload, headerBytes + 4);
  return out;
}

export function decodeBroadcast(data: Uint8Array): BroadcastPacket {
  if (data.length < 12) throw new UperError(`a GN packet has at least 12 octets, got ${data.length}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data[0] >> 4 !== GN_VERSION || (data[0] & 0xf) !== NEXT_HEADER_COMMON)
    throw new UperError('not an unsecured GeoNetworking v1 packet');
  if (data[4] >> 4 !== NEXT_HEADER_BTP_B) throw new UperError('not BTP-B');
  const isGbc = data[5] === ((HEADER_TYPE_GBC << 4) | SUBTYPE_CIRCLE);
  if (!isGbc && data[5] !== ((HEADER_TYPE_TSB << 4) | SUBTYPE_MULTI_HOP))
    throw new UperError('neither a circular GeoBroadcast nor a multi-hop TSB');
  const headerBytes = 4 + 8 + (isGbc ? GBC_EXTENDED_BYTES : TSB_EXTENDED_BYTES);
  if (data.length < headerBytes + 4) throw new UperError(`this GN packet has at least ${headerBytes + 4} octets, got ${data.length}`);
  const btpLength = view.getUint16(8);
  if (btpLength !== data.length - headerBytes)
    throw new UperError(`GN payload length ${btpLength} does not match the packet's ${data.length - headerBytes}`);
  const packet: BroadcastPacket = {
    source: readLongPositionVector(view, data, 16),
    sequenceNumber: view.getUint16(12),
    btpPort: view.getUint16(headerBytes),
    trafficClass: data[6],
    lifetimeMs: lifetimeMsOf(data[2]),
    hopLimit: data[10],
    payload: data.slice(headerBytes + 4),
  };
  if (isGbc) packet.area = { latitude: view.getInt32(40), longitude: view.getInt32(44), radius: view.getUint16(48) };
  return packet;
}

/** The source's long position vector of a GN packet of any kind cavsim sends (SHB, GBC, multi-hop TSB); undefined for anything else. */
export function gnSourceOf(data: Uint8Array): LongPositionVector | undefined {
  try {
    return (data.length > 5 && data[5] === ((HEADER_TYPE_TSB << 4) | SUBTYPE_SINGLE_HOP) ? decodeShb(data) : decodeBroadcast(data)).source;
  } catch {
    return undefined;
  }
}
