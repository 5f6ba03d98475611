import { type MsgField, msgFields } from './ros-message-types.js';

/** Little-endian plain CDR, as ROS 2 (and its rmw implementations) put on the wire and in bags. */
const ENCAPSULATION = [0x00, 0x01, 0x00, 0x00];

class ByteSink {
  bytes = new Uint8Array(64 * 1024);
  view = new DataView(this.bytes.buffer);
  /** Offset from the start, encapsulation header included; alignment counts from after it. */
  at = 0;

  reset(): void {
    this.bytes.set(ENCAPSULATION, 0);
    this.at = 4;
  }

  reserve(n: number, align: number): number {
    const pad = align > 1 ? (align - ((this.at - 4) % align)) % align : 0;
    if (this.at + pad + n > this.bytes.length) this.grow(this.at + pad + n);
    // the buffer is reused: padding must not carry bytes of an earlier message
    for (let i = 0; i < pad; i++) this.bytes[this.at + i] = 0;
    this.at += pad;
    const at = this.at;
    this.at += n;
    return at;
  }

  private grow(needed: number): void {
    const bigger = new Uint8Array(Math.max(needed, this.bytes.length * 2));
    bigger.set(this.bytes.subarray(0, this.at));
    this.bytes = bigger;
    this.view = new DataView(bigger.buffer);
  }
}

type Write = (sink: ByteSink, value: unknown) => void;

const TEXT = new TextEncoder();

const PRIMITIVES: Record<string, { size: number; put: (v: DataView, at: number, x: number) => void }> = {
  bool: { size: 1, put: (v, at, x) => v.setUint8(at, x ? 1 : 0) },
  int8: { size: 1, put: (v, at, x) => v.setInt8(at, x) },
  uint8: { size: 1, put: (v, at, x) => v.setUint8(at, x) },
  byte: { size: 1, put: (v, at, x) => v.setUint8(at, x) },
  char: { size: 1, put: (v, at, x) => v.setUint8(at, x) },
  int16: { size: 2, put: (v, at, x) => v.setInt16(at, x, true) },
  uint16: { size: 2, put: (v, at, x) => v.setUint16(at, x, true) },
  int32: { size: 4, put: (v, at, x) => v.setInt32(at, x, true) },
  uint32: { size: 4, put: (v, at, x) => v.setUint32(at, x, true) },
  float32: { size: 4, put: (v, at, x) => v.setFloat32(at, x, true) },
  float64: { size: 8, put: (v, at, x) => v.setFloat64(at, x, true) },
  int64: { size: 8, put: (v, at, x) => v.setBigInt64(at, BigInt(x), true) },
  uint64: { size: 8, put: (v, at, x) => v.setBigUint64(at, BigInt(x), true) },
};

const writeString: Write = (sink, value) => {
  const text = typeof value === 'string' ? value : '';
  const n = text.length;
  let ascii = true;
  for (let i = 0; i < n && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
  if (!ascii) return writeEncoded(sink, TEXT.encode(text));
  // names, ids and reasons are ASCII: byte by byte, without a TextEncoder allocation per string
  const at = sink.reserve(4 + n + 1, 4);
  sink.view.setUint32(at, n + 1, true);
  const bytes = sink.bytes;
  for (let i = 0; i < n; i++) bytes[at + 4 + i] = text.charCodeAt(i);
  bytes[at + 4 + n] = 0;
};

function writeEncoded(sink: ByteSink, bytes: Uint8Array): void {
  const at = sink.reserve(4 + bytes.length + 1, 4);
  sink.view.setUint32(at, bytes.length + 1, true);
  sink.bytes.set(bytes, at + 4);
  sink.bytes[at + 4 + bytes.length] = 0;
}

function scalarWriter(type: string, complex: (name: string) => Write): Write {
  if (type === 'string') return writeString;
  const p = PRIMITIVES[type];
  if (!p) return complex(type);
  return (sink, value) => {
    // reserve first: it may grow the buffer and replace the view
    const at = sink.reserve(p.size, p.size);
    p.put(sink.view, at, Number(value ?? 0));
  };
}

function fieldWriter(field: MsgField, complex: (name: string) => Write): Write {
  const one = scalarWriter(field.type, complex);
  if (field.length === undefined) return (sink, msg) => one(sink, (msg as Record<string, unknown>)[field.name]);
  const fixed = field.length ?? undefined;
  const byteSized = PRIMITIVES[field.type]?.size === 1 && field.type !== 'bool';
  return (sink, msg) => {
    const items = ((msg as Record<string, unknown>)[field.name] ?? []) as ArrayLike<unknown>;
    if (byteSized && ArrayBuffer.isView(items) && fixed === undefined) {
      const raw = new Uint8Array(items.buffer, items.byteOffset, items.byteLength);
      const at = sink.reserve(4 + raw.length, 4);
      sink.view.setUint32(at, raw.length, true);
      sink.bytes.set(raw, at + 4);
      return;
    }
    const n = fixed ?? items.length;
    if (fixed === undefined) {
      const at = sink.reserve(4, 4);
      sink.view.setUint32(at, n, true);
    }
    for (let i = 0; i < n; i++) one(sink, items[i]);
  };
}

/**
 * An encoder for one message type of ros-message-types.ts, built once: far faster than interpreting
 * a definition for every message, which matters at thousands of messages a run. Its bytes are those
 * of @foxglove/rosmsg2-serialization's writer (a test holds them equal).
 */
export function compileCdrEncoder(type: string): (message: unknown) => Uint8Array {
  const compiled = new Map<string, Write>();
  const complex = (name: string): Write => {
    const known = compiled.get(name);
    if (known) return known;
    let fields: Write[] = [];
    const write: Write = (sink, msg) => {
      for (const f of fields) f(sink, msg ?? {});
    };
    compiled.set(name, write);
    fields = msgFields(name).map((f) => fieldWriter(f, complex));
    return write;
  };
  const root = complex(type);
  const sink = new ByteSink();
  return (message) => {
    sink.reset();
    root(sink, message);
    return sink.bytes.slice(0, sink.at);
  };
}

/**
 * The bytes of one message and where each of its primitive fields sits in them (paths such as
 * `pose.pose.position.x`, `transforms[1].transform.translation.y`). A message whose strings and
 * array lengths do not change keeps that layout, so a recorder can copy the bytes and overwrite
 * only the numbers: what makes recording a simulated step cheap.
 */
export function cdrLayout(type: string, sample: unknown): { bytes: Uint8Array; offsets: Map<string, number> } {
  const sink = new ByteSink();
  const offsets = new Map<string, number>();
  sink.reset();
  const walk = (fields: MsgField[], msg: Record<string, unknown>, prefix: string) => {
    for (const f of fields) {
      const path = prefix + f.name;
      const value = msg[f.name];
      if (f.length === undefined) one(f.type, value, path);
      else {
        const items = (value ?? []) as ArrayLike<unknown>;
        const n = f.length ?? items.length;
        if (f.length === null) {
          const at = sink.reserve(4, 4);
          sink.view.setUint32(at, n, true);
        }
        for (let i = 0; i < n; i++) one(f.type, items[i], `${path}[${i}]`);
      }
    }
  };
  const one = (t: string, value: unknown, path: string) => {
    if (t === 'string') return writeString(sink, value);
    const p = PRIMITIVES[t];
    if (!p) return walk(msgFields(t), (value ?? {}) as Record<string, unknown>, `${path}.`);
    const at = sink.reserve(p.size, p.size);
    p.put(sink.view, at, Number(value ?? 0));
    offsets.set(path, at);
  };
  walk(msgFields(type), (sample ?? {}) as Record<string, unknown>, '');
  return { bytes: sink.bytes.slice(0, sink.at), offsets };
}
