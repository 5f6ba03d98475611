import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { connect, type Socket } from 'node:net';

const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP_CONTINUATION = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;
/** A frame or message larger than this ends the connection (1009, message too big). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const HANDSHAKE_LIMIT = 16 * 1024;
/**
 * Masking keys are taken from a pool of random bytes rather than asking the kernel per frame. Small
 * enough that a vehicle's rehearsal (control-link-rehearsal.ts) refills it too, so the refill is no
 * surprise to optimized code in the run.
 */
const MASK_POOL_BYTES = 1024;
const READ_BUFFER_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);

interface SocketReader {
  onBytes(chunk: Buffer): void;
}

export type TextSocketState = 'open' | 'closing' | 'closed';

export interface TextSocketEvents {
  message(text: string): void;
  close(code: number, reason: string): void;
}

/**
 * A WebSocket client (RFC 6455) for text messages over ws:// and nothing else: the control link
 * of a vehicle runs one message each way per control tick, and on this 2-core VM the `ws` package's
 * stream layers (its receiver is a Writable fed by the socket's Readable, its sender corks and
 * uncorks) cost more CPU per tick than the car's controller. Frames are parsed straight from the
 * socket's read buffer (`onread`, no 'data' events) and written with one `write` each. Binary messages are delivered as UTF-8 text,
 * pings answered, fragmented messages joined; no extensions are offered.
 */
export class TextWebSocket {
  private state: TextSocketState = 'open';
  private pending: Buffer | undefined;
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private maskPool = Buffer.alloc(0);
  private maskAt = MASK_POOL_BYTES;
  private closeSent = false;
  private closedWith?: { code: number; reason: string };
  private readonly listeners: { message: Array<(text: string) => void>; close: Array<(code: number, reason: string) => void> } = {
    message: [],
    close: [],
  };

  private constructor(
    private readonly socket: Socket,
    reader: SocketReader,
    leftover: Buffer,
  ) {
    socket.setNoDelay(true);
    reader.onBytes = (chunk) => this.onData(chunk);
    socket.on('error', () => {}); // 'close' follows, and carries the outcome
    socket.on('close', () => this.finish(this.closedWith?.code ?? 1006, this.closedWith?.reason ?? ''));
    // Frames that came with the handshake answer: kept ahead of later bytes, and delivered after
    // the opener has attached its listeners.
    if (leftover.length) {
      this.pending = leftover;
      setImmediate(() => this.onData(EMPTY));
    }
  }

  /**
   * Opens `ws://host:port/path`; rejects when the TCP connection or the handshake fails. Attach the
   * listeners as soon as it resolves (before yielding to I/O): nothing is delivered before that.
   * `localPort`: the connection's source port, for a client the server knows by it.
   */
  static open(url: string, opts: { localPort?: number } = {}): Promise<TextWebSocket> {
    const u = new URL(url);
    if (u.protocol !== 'ws:') return Promise.reject(new Error(`${url}: only ws:// is supported`));
    const port = Number(u.port || 80);
    const key = randomBytes(16).toString('base64');
    const expected = createHash('sha1')
      .update(key + ACCEPT_GUID)
      .digest('base64');
    return new Promise((resolve, reject) => {
      // Bytes go straight from the socket into `reader`, without a Readable stream's 'data' events;
      // they live in a reused buffer, so whatever is kept is copied.
      const reader: SocketReader = { onBytes: () => {} };
      const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
      const socket = connect({
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port,
        ...(opts.localPort !== undefined ? { localPort: opts.localPort } : {}),
        onread: {
          buffer: readBuffer,
          callback: (n) => {
            reader.onBytes(readBuffer.subarray(0, n));
            return true;
          },
        },
      });
      let head = EMPTY;
      const fail = (err: Error) => {
        socket.destroy();
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) {
          if (head.length > HANDSHAKE_LIMIT) fail(new Error(`${url}: handshake answer too long`));
          return;
        }
        reader.onBytes = () => {};
        socket.off('error', fail);
        socket.off('close', onEarlyClose);
        const lines = head.subarray(0, end).toString('latin1').split('\r\n');
        const status = /^HTTP\/1\.1 (\d{3})/.exec(lines[0])?.[1];
        const accept = lines
          .find((l) => /^sec-websocket-accept:/i.test(l))
          ?.split(':')[1]
          ?.trim();
        if (status !== '101') return fail(new Error(`${url}: handshake answered ${lines[0]}`));
        if (accept !== expected) return fail(new Error(`${url}: handshake answered a wrong Sec-WebSocket-Accept`));
        resolve(new TextWebSocket(socket, reader, head.subarray(end + 4)));
      };
      const onEarlyClose = () => reject(new Error(`${url}: connection closed during the handshake`));
      reader.onBytes = onData;
      socket.once('error', fail);
      socket.once('close', onEarlyClose);
      socket.once('connect', () => {
        const host = u.port ? `${u.hostname}:${u.port}` : u.hostname;
        socket.write(
          `GET ${u.pathname || '/'}${u.search} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
      });
    });
  }

  get readyState(): TextSocketState {
    return this.state;
  }

  on<E extends keyof TextSocketEvents>(event: E, listener: TextSocketEvents[E]): void {
    (this.listeners[event] as Array<TextSocketEvents[E]>).push(listener);
  }

  /** Sends one text message; ignored unless open. */
  send(text: string): void {
    if (this.state !== 'open') return;
    this.writeFrame(OP_TEXT, Buffer.from(text, 'utf8'));
  }

  /** Starts the closing handshake; the socket ends when the server answers (or `terminate`). */
  close(code = 1000, reason = ''): void {
    if (this.state !== 'open') return;
    this.state = 'closing';
    this.sendClose(code, reason);
  }

  /** Drops the connection at once. */
  terminate(): void {
    this.socket.destroy();
  }

  private sendClose(code: number, reason: string): void {
    if (this.closeSent) return;
    this.closeSent = true;
    const reasonBytes = Buffer.from(reason, 'utf8');
    const payload = Buffer.allocUnsafe(2 + reasonBytes.length);
    payload.writeUInt16BE(code, 0);
    reasonBytes.copy(payload, 2);
    this.writeFrame(OP_CLOSE, payload);
  }

  private writeFrame(opcode: number, payload: Buffer): void {
    const n = payload.length;
    const headerBytes = n < 126 ? 2 : n < 65536 ? 4 : 10;
    const frame = Buffer.allocUnsafe(headerBytes + 4 + n);
    frame[0] = 0x80 | opcode;
    if (n < 126) {
      frame[1] = 0x80 | n;
    } else if (n < 65536) {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(n, 2);
    } else {
      frame[1] = 0x80 | 127;
      frame.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
      frame.writeUInt32BE(n >>> 0, 6);
    }
    if (this.maskAt + 4 > MASK_POOL_BYTES) {
      this.maskPool = randomFillSync(Buffer.allocUnsafe(MASK_POOL_BYTES));
      this.maskAt = 0;
    }
    const m = headerBytes;
    const pool = this.maskPool;
    const at = this.maskAt;
    frame[m] = pool[at];
    frame[m + 1] = pool[at + 1];
    frame[m + 2] = pool[at + 2];
    frame[m + 3] = pool[at + 3];
    this.maskAt += 4;
    const start = m + 4;
    for (let i = 0; i < n; i++) frame[start + i] = payload[i] ^ frame[m + (i & 3)];
    this.socket.write(frame);
  }

  private onData(chunk: Buffer): void {
    const buf = this.pending ? (chunk.length ? Buffer.concat([this.pending, chunk]) : this.pending) : chunk;
    this.pending = undefined;
    let at = 0;
    while (this.state !== 'closed') {
      const frame = readFrameHeader(buf, at);
      if (frame === 'incomplete') break;
      if (frame === 'masked' || frame === 'too-big') {
        return this.fail(frame === 'masked' ? 1002 : 1009, frame === 'masked' ? 'server frames must not be masked' : 'message too big');
      }
      const end = frame.payloadAt + frame.length;
      if (buf.length < end) break;
      this.onFrame(frame.fin, frame.opcode, buf.subarray(frame.payloadAt, end));
      at = end;
    }
    if (at < buf.length && this.state !== 'closed') this.pending = Buffer.from(buf.subarray(at));
  }

  private onFrame(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case OP_TEXT:
      case OP_BINARY:
      case OP_CONTINUATION: {
        if (opcode !== OP_CONTINUATION && this.fragments.length) return this.fail(1002, 'a new message began inside a fragmented one');
        if (opcode === OP_CONTINUATION && !this.fragments.length) return this.fail(1002, 'continuation without a message');
        if (fin && !this.fragments.length) return this.deliver(payload.toString('utf8'));
        this.fragmentBytes += payload.length;
        if (this.fragmentBytes > MAX_MESSAGE_BYTES) return this.fail(1009, 'message too big');
        this.fragments.push(Buffer.from(payload));
        if (!fin) return;
        const text = Buffer.concat(this.fragments).toString('utf8');
        this.fragments = [];
        this.fragmentBytes = 0;
        return this.deliver(text);
      }
      case OP_PING:
        if (this.state === 'open') this.writeFrame(OP_PONG, Buffer.from(payload));
        return;
      case OP_PONG:
        return;
      case OP_CLOSE: {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.closedWith = { code, reason: payload.subarray(2).toString('utf8') };
        this.state = 'closing';
        this.sendClose(code === 1005 ? 1000 : code, '');
        this.socket.end();
        return;
      }
      default:
        return this.fail(1002, `unknown opcode ${opcode}`);
    }
  }

  private deliver(text: string): void {
    if (this.state !== 'open') return;
    for (const listener of this.listeners.message) listener(text);
  }

  private fail(code: number, reason: string): void {
    this.closedWith = { code, reason };
    this.sendClose(code, reason);
    this.socket.destroy();
  }

  private finish(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    for (const listener of this.listeners.close) listener(code, reason);
  }
}

type FrameHeader = { fin: boolean; opcode: number; payloadAt: number; length: number };

function readFrameHeader(buf: Buffer, at: number): FrameHeader | 'incomplete' | 'masked' | 'too-big' {
  if (buf.length - at < 2) return 'incomplete';
  const b0 = buf[at];
  const b1 = buf[at + 1];
  if (b1 & 0x80) return 'masked';
  let length = b1 & 0x7f;
  let payloadAt = at + 2;
  if (length === 126) {
    if (buf.length - at < 4) return 'incomplete';
    length = buf.readUInt16BE(at + 2);
    payloadAt = at + 4;
  } else if (length === 127) {
    if (buf.length - at < 10) return 'incomplete';
    const high = buf.readUInt32BE(at + 2);
    if (high > 0) return 'too-big';
    length = buf.readUInt32BE(at + 6);
    payloadAt = at + 10;
  }
  if (length > MAX_MESSAGE_BYTES) return 'too-big';
  return { fin: (b0 & 0x80) !== 0, opcode: b0 & 0x0f, payloadAt, length };
}
