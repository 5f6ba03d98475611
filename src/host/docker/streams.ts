// biome-ignore-all lint/suspicious/noExplicitAny: Docker's JSON (progress lines, inspect results) is untyped; callers read the fields they know
/** Reads newline-delimited JSON (Docker's build/pull progress); tolerates objects split across chunks. */
export async function* readJsonLines(stream: NodeJS.ReadableStream): AsyncGenerator<Record<string, any>> {
  let pending = '';
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const parsed = parseLine(line);
      if (parsed) yield parsed;
    }
  }
  const last = parseLine(pending);
  if (last) yield last;
}

function parseLine(line: string): Record<string, any> | undefined {
  if (!line.trim()) return undefined;
  try {
    return JSON.parse(line) as Record<string, any>;
  } catch {
    return { stream: line };
  }
}

/**
 * Splits Docker's multiplexed attach/exec stream (no TTY): frames of an 8-byte header
 * [stream type, 0, 0, 0, big-endian length] followed by that many bytes. Type 2 is stderr.
 */
export async function demuxDockerStream(stream: NodeJS.ReadableStream): Promise<{ stdout: string; stderr: string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let pending = Buffer.alloc(0);
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    pending = Buffer.concat([pending, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
    while (pending.length >= 8) {
      const size = pending.readUInt32BE(4);
      if (pending.length < 8 + size) break;
      (pending[0] === 2 ? err : out).push(pending.subarray(8, 8 + size));
      pending = pending.subarray(8 + size);
    }
  }
  return { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** Encodes one frame of Docker's multiplexed stream (used by test fakes). */
export function dockerFrame(streamType: 1 | 2, text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  const header = Buffer.alloc(8);
  header[0] = streamType;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}
