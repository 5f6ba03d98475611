import { z } from 'zod';

/** UDP port every vehicle listens on, on its eth1 address. */
export { V2V_PORT } from '../../../ports.js';

/**
 * The datagram on the wire. `sentAtNs` is wall-clock epoch nanoseconds as a decimal string;
 * vehicles share the host's clock, so receive time minus send time is a true one-way latency.
 */
export const v2vDatagramSchema = z.object({
  id: z.string().min(1).max(128),
  from: z.string().min(1).max(64),
  to: z.string().min(1).max(64),
  type: z.string().min(1).max(64),
  sentAtNs: z.string().regex(/^\d{1,20}$/),
  body: z.record(z.string(), z.unknown()),
});
export type V2VDatagram = z.infer<typeof v2vDatagramSchema>;

export { epochNs } from '../../../util/epoch-ns.js';

export function encodeDatagram(d: V2VDatagram): Buffer {
  return Buffer.from(JSON.stringify(d), 'utf8');
}

/** Pads an encoded datagram with spaces (which JSON allows after the value) to at least `size` bytes. */
export function padTo(encoded: Buffer, size: number | undefined): Buffer {
  return size === undefined || encoded.length >= size ? encoded : Buffer.concat([encoded, Buffer.alloc(size - encoded.length, 0x20)]);
}

/** Returns undefined for anything that is not a well-formed datagram (stray traffic is ignored). */
export function decodeDatagram(buf: Buffer): V2VDatagram | undefined {
  try {
    const parsed = v2vDatagramSchema.safeParse(JSON.parse(buf.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
