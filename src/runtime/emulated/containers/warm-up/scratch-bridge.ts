import { createHash } from 'node:crypto';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';

const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP_TEXT = 0x1;
const OP_CLOSE = 0x8;
/** A rehearsal's client sends small control ops; anything bigger is not one of ours. */
const MAX_FRAME_BYTES = 1024 * 1024;

/** One connected client of a ScratchBridge: the frames it sent, and a way to send it text. */
export interface ScratchPeer {
  send(text: string): void;
  /** Starts the closing handshake. */
  close(): void;
}

/**
 * The server end of a WebSocket on loopback, inside the vehicle's own process, for rehearsing the
 * control link before the run: the car's real client code (TCP socket, framing, rosbridge ops)
 * runs against it as it will against the simulator. One client; text frames only; it answers the
 * client's close and nothing else (no pings, no extensions). Not a rosbridge server: what it sends
 * and how it answers is the rehearsal's script (`onText`).
 */
export class ScratchBridge {
  private constructor(private readonly server: Server) {}

  static listen(onText: (text: string, peer: ScratchPeer) => void): Promise<ScratchBridge> {
    const server = createServer((socket) => serve(socket, onText));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(new ScratchBridge(server)));
    });
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function serve(socket: Socket, onText: (text: string, peer: ScratchPeer) => void): void {
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  const peer: ScratchPeer = {
    send: (text) => socket.write(serverFrame(OP_TEXT, Buffer.from(text, 'utf8'))),
    close: () => socket.end(serverFrame(OP_CLOSE, Buffer.from([0x03, 0xe8]))),
  };
  let buf: Buffer = Buffer.alloc(0);
  let upgraded = false;
  socket.on('data', (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const key = /^sec-websocket-key:\s*(\S+)/im.exec(buf.subarray(0, end).toString('latin1'))?.[1];
      if (!key) return void socket.destroy();
      const accept = createHash('sha1')
        .update(key + ACCEPT_GUID)
        .digest('base64');
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
      upgraded = true;
      buf = buf.subarray(end + 4);
    }
    for (;;) {
      const frame = clientFrame(buf);
      if (frame === 'incomplete') break;
      if (frame === 'bad') return void socket.destroy();
      buf = buf.subarray(frame.end);
      if (frame.opcode === OP_CLOSE) return void socket.end(serverFrame(OP_CLOSE, frame.payload.subarray(0, 2)));
      if (frame.opcode === OP_TEXT) onText(frame.payload.toString('utf8'), peer);
    }
  });
}

/** An unmasked server frame, sent whole (no fragments). */
function serverFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const headerBytes = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerBytes + n);
  frame[0] = 0x80 | opcode;
  if (n < 126) frame[1] = n;
  else if (n < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(0, 2);
    frame.writeUInt32BE(n, 6);
  }
  payload.copy(frame, headerBytes);
  return frame;
}

/** A client frame (masked, as RFC 6455 requires of clients), unmasked; fragments are not expected. */
function clientFrame(buf: Buffer): { opcode: number; payload: Buffer; end: number } | 'incomplete' | 'bad' {
  if (buf.length < 2) return 'incomplete';
  if (!(buf[1] & 0x80) || !(buf[0] & 0x80)) return 'bad';
  let length = buf[1] & 0x7f;
  let at = 2;
  if (length === 126) {
    if (buf.length < 4) return 'incomplete';
    length = buf.readUInt16BE(2);
    at = 4;
  } else if (length === 127) {
    if (buf.length < 10) return 'incomplete';
    if (buf.readUInt32BE(2) !== 0) return 'bad';
    length = buf.readUInt32BE(6);
    at = 10;
  }
  if (length > MAX_FRAME_BYTES) return 'bad';
  const end = at + 4 + length;
  if (buf.length < end) return 'incomplete';
  const payload = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) payload[i] = buf[at + 4 + i] ^ buf[at + (i & 3)];
  return { opcode: buf[0] & 0x0f, payload, end };
}
