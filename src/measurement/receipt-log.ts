import { closeSync, fstatSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { appendWhole } from '../util/append-whole.js';
import { openForWriting } from '../util/write-no-follow.js';

/** Columns of v2v.csv, shared by the emulated and the simulated runtime. */
export const V2V_CSV_COLUMNS = ['id', 'from', 'to', 'type', 'sent_s', 'received_s', 'latency_ms', 'size_bytes'] as const;

export interface V2VReceipt {
  id: string;
  from: string;
  to: string;
  type: string;
  sent_s: number;
  received_s: number;
  latency_ms: number;
  size_bytes: number;
}

/** Receipt for a datagram sent at `sentNs` and received at `receivedNs` (both epoch ns). */
export function toReceipt(
  d: { id: string; from: string; to: string; type: string },
  sentNs: bigint,
  receivedNs: bigint,
  size: number,
): V2VReceipt {
  return {
    id: d.id,
    from: d.from,
    to: d.to,
    type: d.type,
    sent_s: nsToSeconds(sentNs),
    received_s: nsToSeconds(receivedNs),
    latency_ms: Number(receivedNs - sentNs) / 1e6,
    size_bytes: size,
  };
}

const nsToSeconds = (ns: bigint) => Number(ns / 1000n) / 1e6;

/** Appends one row per arrival and writes it through at once, so a killed run keeps its rows. */
export class ReceiptCsv {
  private fd: number | undefined;
  private size: number;

  constructor(
    readonly path: string,
    writeHeader = true,
  ) {
    this.fd = openForWriting(path, writeHeader ? 'truncate' : 'append');
    this.size = writeHeader ? appendWhole(this.fd, path, Buffer.from(stringify([[...V2V_CSV_COLUMNS]])), 0) : fstatSync(this.fd).size;
  }

  append(r: V2VReceipt): void {
    if (this.fd === undefined) throw new Error(`receipt log ${this.path} is closed`);
    this.size = appendWhole(this.fd, this.path, Buffer.from(stringify([V2V_CSV_COLUMNS.map((c) => r[c])])), this.size);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
