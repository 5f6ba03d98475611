import { PlainFields } from '../../../util/plain-fields.js';

/** UDP port every vehicle listens on, on its eth1 address. */
export { V2V_PORT } from '../../../ports.js';

/**
 * The datagram on the wire. `sentAtNs` is wall-clock epoch nanoseconds as a decimal string;
 * vehicles share the host's clock, so receive time minus send time is a true one-way latency.
 */
export interface JsonDatagram {
  id: string;
  from: string;
  to: string;
  type: string;
  sentAtNs: string;
  body: Record<string, unknown>;
}
/**
 * A datagram as decoded: `packet` is the GeoNetworking packet a standard message (CAM, DENM)
 * travelled as; its `body` is then empty, the packet is the message.
 */
export type V2VDatagram = JsonDatagram & { packet?: Uint8Array };

/**
 * The header line of a GN datagram: the datagram's identity and send stamp as JSON (so the
 * channel program finds its `"id":"` as in any datagram), and `gn`, the length of the packet that
 * follows the newline.
 */
const GN_HEADER_KEYS = ['id', 'from', 'to', 'type', 'sentAtNs', 'gn'] as const;
const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;

export { epochNs } from '../../../util/epoch-ns.js';

/**
 * The bytes of a datagram. A JSON datagram is its JSON. One with a `packet` (a standard V2X
 * message) is a JSON header line, `{"id","from","to","type","sentAtNs","gn"}` and a newline, then
 * the GeoNetworking packet's own bytes: the receiver hands those to its apps as they were built,
 * and the body stays behind (the packet is the message).
 */
export function encodeDatagram(d: V2VDatagram): Buffer {
  if (!d.packet)
    return Buffer.from(JSON.stringify({ id: d.id, from: d.from, to: d.to, type: d.type, sentAtNs: d.sentAtNs, body: d.body }), 'utf8');
  const header = Buffer.from(
    `${JSON.stringify({ id: d.id, from: d.from, to: d.to, type: d.type, sentAtNs: d.sentAtNs, gn: d.packet.length })}\n`,
    'utf8',
  );
  return Buffer.concat([header, d.packet]);
}

/** Bytes of the message a datagram carries: its GN packet's, else the whole datagram's. */
export const messageBytes = (d: V2VDatagram, datagramBytes: number): number => d.packet?.length ?? datagramBytes;

/** Pads an encoded datagram with spaces (which JSON allows after the value) to at least `size` bytes. */
export function padTo(encoded: Buffer, size: number | undefined): Buffer {
  return size === undefined || encoded.length >= size ? encoded : Buffer.concat([encoded, Buffer.alloc(size - encoded.length, 0x20)]);
}

/** Returns undefined for anything that is not a well-formed datagram (stray traffic is ignored). */
export function decodeDatagram(buf: Buffer): V2VDatagram | undefined {
  const gn = decodeGnDatagram(buf);
  if (gn) return gn;
  try {
    const f = PlainFields.of(JSON.parse(buf.toString('utf8')));
    if (!f) return undefined;
    const datagram = { ...identityOf(f), body: f.record('body') };
    return f.issues.length ? undefined : datagram;
  } catch {
    return undefined;
  }
}

/** A GN datagram (header line, then exactly `gn` bytes of packet), or undefined. */
function decodeGnDatagram(buf: Buffer): V2VDatagram | undefined {
  if (buf[0] !== OPEN_BRACE) return undefined;
  const end = buf.indexOf(NEWLINE);
  if (end < 0) return undefined;
  try {
    const f = PlainFields.of(JSON.parse(buf.toString('utf8', 0, end)));
    if (!f) return undefined;
    const header = identityOf(f);
    const gn = f.number('gn', { integer: true, min: 1, max: 65000 });
    f.onlyKeys(GN_HEADER_KEYS);
    if (f.issues.length || gn !== buf.length - end - 1) return undefined;
    return { ...header, body: {}, packet: new Uint8Array(buf.subarray(end + 1)) };
  } catch {
    return undefined;
  }
}

/** A datagram's identity and send stamp, checked (zod is kept off the vehicle's start-up path). */
function identityOf(f: PlainFields): Omit<JsonDatagram, 'body'> {
  return {
    id: f.string('id', { min: 1, max: 128 }),
    from: f.string('from', { min: 1, max: 64 }),
    to: f.string('to', { min: 1, max: 64 }),
    type: f.string('type', { min: 1, max: 64 }),
    sentAtNs: f.string('sentAtNs', { pattern: /^\d{1,20}$/ }),
  };
}
