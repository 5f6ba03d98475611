import { closeSync } from 'node:fs';
import { appendWhole } from '../util/append-whole.js';
import { openForWriting } from '../util/write-no-follow.js';

/** pcap's microsecond-resolution magic, written little-endian; link type 1 is Ethernet. */
const PCAP_MAGIC = 0xa1b2c3d4;
const LINKTYPE_ETHERNET = 1;
const SNAPLEN = 65535;
const ETHERNET_HEADER_BYTES = 14;
/** Simulated time 0 is the ITS epoch, 2004-01-01 00:00:00 UTC, in Unix seconds (pcap's clock). */
export const PCAP_EPOCH_UNIX_S = 1072915200;
export const BROADCAST_MAC = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

/** An Ethernet II frame: destination, source, ethertype, payload (no frame check sequence, as captures have). */
export function ethernetFrame(destination: Uint8Array, source: Uint8Array, ethertype: number, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(ETHERNET_HEADER_BYTES + payload.length);
  frame.set(destination, 0);
  frame.set(source, 6);
  frame[12] = ethertype >> 8;
  frame[13] = ethertype & 0xff;
  frame.set(payload, ETHERNET_HEADER_BYTES);
  return frame;
}

/**
 * A pcap capture written as the run goes (Ethernet link type, microsecond timestamps): records
 * are buffered and written whole on flush(), in time order (frames reported out of order, as the
 * emulated runtime's vehicles report theirs, are sorted within what one flush writes), so a crash
 * leaves a file that ends on a whole frame.
 * The file is created with the first frame written (a run that sends nothing has none), without
 * following a link at its name, like every run file.
 */
export class PcapLog {
  private fd: number | undefined;
  private pending: { micros: number; record: Buffer; frame: Uint8Array }[] = [];
  private size = 0;
  private closed = false;
  frames = 0;

  constructor(readonly path: string) {}

  private open(): number {
    const fd = openForWriting(this.path);
    this.fd = fd;
    const header = Buffer.alloc(24);
    header.writeUInt32LE(PCAP_MAGIC, 0);
    header.writeUInt16LE(2, 4);
    header.writeUInt16LE(4, 6);
    header.writeUInt32LE(SNAPLEN, 16);
    header.writeUInt32LE(LINKTYPE_ETHERNET, 20);
    this.size = appendWhole(fd, this.path, header, 0);
    return fd;
  }

  /** A frame at simulated time `t` [s]. */
  add(t: number, frame: Uint8Array): void {
    const micros = Math.round((PCAP_EPOCH_UNIX_S + t) * 1e6);
    const record = Buffer.alloc(16);
    record.writeUInt32LE(Math.floor(micros / 1e6), 0);
    record.writeUInt32LE(micros % 1e6, 4);
    record.writeUInt32LE(frame.length, 8);
    record.writeUInt32LE(frame.length, 12);
    this.pending.push({ micros, record, frame });
    this.frames++;
  }

  flush(): void {
    if (this.closed || !this.pending.length) return;
    const fd = this.fd ?? this.open();
    // a stable sort: frames added in time order (the simulated runtime's) keep their order
    const bytes = Buffer.concat(this.pending.sort((a, b) => a.micros - b.micros).flatMap((p) => [p.record, p.frame]));
    this.pending = [];
    this.size = appendWhole(fd, this.path, bytes, this.size);
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.closed = true;
      if (this.fd !== undefined) closeSync(this.fd);
    }
  }
}
