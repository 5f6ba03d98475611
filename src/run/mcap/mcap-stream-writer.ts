import { closeSync, renameSync, rmSync, writeSync } from 'node:fs';
import { McapRecordBuilder } from '@mcap/core';
import { isNoSpace, NoSpaceError } from '../../util/append-whole.js';
import { openForWriting } from '../../util/write-no-follow.js';

/** MCAP record opcodes this writer frames itself (the rest go through @mcap/core's record builder). */
const CHUNK = 0x06;
const MESSAGE_INDEX = 0x07;
const MESSAGE = 0x05;
const TEXT = new TextEncoder();
const TWO_32 = 2 ** 32;
/** A message record's fixed part: opcode, length, channel id, sequence, log time, publish time. */
export const MESSAGE_HEADER_BYTES = 1 + 8 + 2 + 4 + 8 + 8;

/** Chunk buffers of finished files, for the next file of this process (a sweep writes hundreds). */
const spareChunks: Uint8Array[] = [];

interface ChannelInChunk {
  times: number[];
  offsets: number[];
}

/**
 * Writes an indexed, chunked MCAP file as messages arrive, synchronously, each message framed
 * straight into the open chunk (no copy, no per-message promise): @mcap/core's McapWriter costs
 * about 10 us a message, more than a simulated step. Chunks carry no CRC (0: "not computed", as
 * the MCAP spec allows). Message times are ns after `timeBaseNs`, as numbers, so a run's 2^53 ns
 * (104 days) fit; the file holds base + offset. Written to `<path>.partial`, renamed on end.
 */
export class McapStreamWriter {
  private readonly fd: number;
  private position = 0;
  private readonly records = new McapRecordBuilder();
  /** The open chunk's bytes and a view on them: where beginMessage's caller writes a message's data. */
  chunk: Uint8Array;
  view: DataView;
  private used = 0;
  private chunkStart = Infinity;
  private chunkEnd = -Infinity;
  /** By channel id, and the ids in the order their first message came (the order indexes are written in). */
  private inChunk: (ChannelInChunk | undefined)[] = [];
  private inChunkOrder: number[] = [];
  private readonly schemas: { id: number; name: string; encoding: string; data: Uint8Array }[] = [];
  private readonly channels: { id: number; schemaId: number; topic: string; messageEncoding: string; metadata: Map<string, string> }[] = [];
  private readonly chunkIndexes: Parameters<McapRecordBuilder['writeChunkIndex']>[0][] = [];
  private readonly metadataIndexes: Parameters<McapRecordBuilder['writeMetadataIndex']>[0][] = [];
  private readonly counts: number[] = [];
  private readonly countOrder: number[] = [];
  private readonly sequences: number[] = [];
  private messages = 0;
  private firstTime = Infinity;
  private lastTime = -Infinity;
  private readonly baseHi: number;
  private readonly baseLo: number;

  constructor(
    private readonly path: string,
    header: { profile: string; library: string },
    private readonly timeBaseNs = 0n,
    private readonly chunkBytes = 256 * 1024,
  ) {
    const spare = spareChunks.findIndex((c) => c.length === chunkBytes);
    this.chunk = spare >= 0 ? spareChunks.splice(spare, 1)[0] : new Uint8Array(chunkBytes);
    this.view = new DataView(this.chunk.buffer);
    this.baseHi = Number(timeBaseNs >> 32n);
    this.baseLo = Number(timeBaseNs & 0xffffffffn);
    this.fd = openForWriting(`${path}.partial`);
    this.records.writeMagic();
    this.records.writeHeader(header);
  }

  addSchema(name: string, encoding: string, text: string): number {
    const schema = { id: this.schemas.length + 1, name, encoding, data: TEXT.encode(text) };
    this.schemas.push(schema);
    this.records.writeSchema(schema);
    return schema.id;
  }

  addChannel(topic: string, schemaId: number, messageEncoding: string): number {
    const channel = { id: this.channels.length, schemaId, topic, messageEncoding, metadata: new Map<string, string>() };
    this.channels.push(channel);
    this.sequences.push(0);
    this.records.writeChannel(channel);
    return channel.id;
  }

  addMetadata(name: string, metadata: Map<string, string>): void {
    this.closeChunk();
    this.flushRecords();
    const offset = BigInt(this.position);
    const length = this.records.writeMetadata({ name, metadata });
    this.flushRecords();
    this.metadataIndexes.push({ offset, length, name });
  }

  /**
   * Opens a message of `size` data bytes in the chunk and returns where its data starts in
   * `chunk`; the caller writes the data there before the next call.
   */
  beginMessage(channelId: number, timeNs: number, size: number): number {
    if (this.used + MESSAGE_HEADER_BYTES + size > this.chunk.length) {
      if (this.used > 0) this.closeChunk();
      if (MESSAGE_HEADER_BYTES + size > this.chunk.length) this.growChunk(MESSAGE_HEADER_BYTES + size);
    }
    const at = this.used;
    const v = this.view;
    v.setUint8(at, MESSAGE);
    this.setU64(at + 1, 2 + 4 + 8 + 8 + size);
    v.setUint16(at + 9, channelId, true);
    v.setUint32(at + 11, ++this.sequences[channelId] >>> 0, true);
    this.setTime(at + 15, timeNs);
    this.setTime(at + 23, timeNs);
    this.used = at + MESSAGE_HEADER_BYTES + size;
    let index = this.inChunk[channelId];
    if (!index) {
      this.inChunk[channelId] = index = { times: [], offsets: [] };
      this.inChunkOrder.push(channelId);
    }
    index.times.push(timeNs);
    index.offsets.push(at);
    if (timeNs < this.chunkStart) this.chunkStart = timeNs;
    if (timeNs > this.chunkEnd) this.chunkEnd = timeNs;
    if (timeNs < this.firstTime) this.firstTime = timeNs;
    if (timeNs > this.lastTime) this.lastTime = timeNs;
    if (!this.counts[channelId]) {
      this.counts[channelId] = 0;
      this.countOrder.push(channelId);
    }
    this.counts[channelId]++;
    this.messages++;
    return at + MESSAGE_HEADER_BYTES;
  }

  addMessage(channelId: number, timeNs: number, data: Uint8Array): void {
    const at = this.beginMessage(channelId, timeNs, data.length);
    this.chunk.set(data, at);
  }

  /** Ends the file: the last chunk, the summary (schemas, channels, statistics, indexes), the footer. */
  end(): void {
    if (this.broken) {
      // Half a recording is no use (`cavsim mcap` writes it again from the CSVs) and may hold a full disk.
      closeSync(this.fd);
      rmSync(`${this.path}.partial`, { force: true });
      return;
    }
    this.closeChunk();
    this.flushRecords();
    this.records.writeDataEnd({ dataSectionCrc: 0 });
    this.flushRecords();
    const summaryStart = this.position;
    const groups: Parameters<McapRecordBuilder['writeSummaryOffset']>[0][] = [];
    const group = (opcode: number, write: () => bigint) => {
      const start = this.position;
      const length = write();
      this.flushRecords();
      if (length > 0n) groups.push({ groupOpcode: opcode, groupStart: BigInt(start), groupLength: length });
    };
    group(0x03, () => this.schemas.reduce((n, s) => n + this.records.writeSchema(s), 0n));
    group(0x04, () => this.channels.reduce((n, c) => n + this.records.writeChannel(c), 0n));
    group(0x0b, () =>
      this.records.writeStatistics({
        messageCount: BigInt(this.messages),
        schemaCount: this.schemas.length,
        channelCount: this.channels.length,
        attachmentCount: 0,
        metadataCount: this.metadataIndexes.length,
        chunkCount: this.chunkIndexes.length,
        messageStartTime: this.messages ? this.absolute(this.firstTime) : 0n,
        messageEndTime: this.messages ? this.absolute(this.lastTime) : 0n,
        channelMessageCounts: new Map(this.countOrder.map((id) => [id, BigInt(this.counts[id])])),
      }),
    );
    group(0x0d, () => this.metadataIndexes.reduce((n, m) => n + this.records.writeMetadataIndex(m), 0n));
    group(0x08, () => this.chunkIndexes.reduce((n, c) => n + this.records.writeChunkIndex(c), 0n));
    const summaryOffsetStart = this.position;
    for (const g of groups) this.records.writeSummaryOffset(g);
    this.records.writeFooter({ summaryStart: BigInt(summaryStart), summaryOffsetStart: BigInt(summaryOffsetStart), summaryCrc: 0 });
    this.records.writeMagic();
    this.flushRecords();
    closeSync(this.fd);
    renameSync(`${this.path}.partial`, this.path);
    if (this.chunk.length === this.chunkBytes && spareChunks.length < 4) spareChunks.push(this.chunk);
  }

  private closeChunk(): void {
    if (this.used === 0) return;
    // the header, schemas and channels go first
    this.flushRecords();
    const chunkOffset = this.position;
    const head = new DataView(new ArrayBuffer(1 + 8 + 8 + 8 + 8 + 4 + 4 + 8));
    head.setUint8(0, CHUNK);
    const contentLength = 8 + 8 + 8 + 4 + 4 + 8 + this.used;
    setU64(head, 1, contentLength);
    this.setTimeIn(head, 9, this.chunkStart);
    this.setTimeIn(head, 17, this.chunkEnd);
    setU64(head, 25, this.used);
    head.setUint32(33, 0, true); // crc: not computed
    head.setUint32(37, 0, true); // compression: none ("")
    setU64(head, 41, this.used);
    this.write(new Uint8Array(head.buffer));
    this.write(this.chunk.subarray(0, this.used));
    const chunkLength = this.position - chunkOffset;

    const messageIndexStart = this.position;
    const messageIndexOffsets = new Map<number, bigint>();
    for (const channelId of this.inChunkOrder) {
      const index = this.inChunk[channelId]!;
      messageIndexOffsets.set(channelId, BigInt(this.position));
      const n = index.times.length;
      const record = new DataView(new ArrayBuffer(1 + 8 + 2 + 4 + n * 16));
      record.setUint8(0, MESSAGE_INDEX);
      setU64(record, 1, 2 + 4 + n * 16);
      record.setUint16(9, channelId, true);
      record.setUint32(11, n * 16, true);
      for (let i = 0; i < n; i++) {
        this.setTimeIn(record, 15 + i * 16, index.times[i]);
        setU64(record, 23 + i * 16, index.offsets[i]);
      }
      this.write(new Uint8Array(record.buffer));
    }
    this.chunkIndexes.push({
      messageStartTime: this.absolute(this.chunkStart),
      messageEndTime: this.absolute(this.chunkEnd),
      chunkStartOffset: BigInt(chunkOffset),
      chunkLength: BigInt(chunkLength),
      messageIndexOffsets,
      messageIndexLength: BigInt(this.position - messageIndexStart),
      compression: '',
      compressedSize: BigInt(this.used),
      uncompressedSize: BigInt(this.used),
    });
    this.used = 0;
    this.chunkStart = Infinity;
    this.chunkEnd = -Infinity;
    this.inChunk = [];
    this.inChunkOrder = [];
    if (this.chunk.length > this.chunkBytes) {
      this.chunk = new Uint8Array(this.chunkBytes);
      this.view = new DataView(this.chunk.buffer);
    }
  }

  private growChunk(size: number): void {
    this.chunk = new Uint8Array(size);
    this.view = new DataView(this.chunk.buffer);
  }

  private absolute(offsetNs: number): bigint {
    return this.timeBaseNs + BigInt(offsetNs);
  }

  private setU64(at: number, value: number): void {
    setU64(this.view, at, value);
  }

  private setTime(at: number, offsetNs: number): void {
    this.setTimeIn(this.view, at, offsetNs);
  }

  /** base + offset as a little-endian u64, in exact double arithmetic (both halves stay below 2^53). */
  private setTimeIn(view: DataView, at: number, offsetNs: number): void {
    const offHi = Math.floor(offsetNs / TWO_32);
    let lo = this.baseLo + (offsetNs - offHi * TWO_32);
    let hi = this.baseHi + offHi;
    if (lo >= TWO_32) {
      lo -= TWO_32;
      hi += 1;
    }
    view.setUint32(at, lo, true);
    view.setUint32(at + 4, hi, true);
  }

  private flushRecords(): void {
    if (this.records.length === 0) return;
    this.write(this.records.buffer);
    this.records.reset();
  }

  /** Set once a write failed: nothing more is written, and `end` discards the file. */
  private broken = false;

  private write(bytes: Uint8Array): void {
    if (this.broken) return;
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done);
    } catch (err) {
      this.broken = true;
      throw isNoSpace(err) ? new NoSpaceError(`${this.path}.partial`, (err as NodeJS.ErrnoException).code!) : err;
    }
    this.position += bytes.length;
  }
}

function setU64(view: DataView, at: number, value: number): void {
  const hi = Math.floor(value / TWO_32);
  view.setUint32(at, value - hi * TWO_32, true);
  view.setUint32(at + 4, hi, true);
}
