import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { demuxDockerStream, dockerFrame, readJsonLines } from '../../../../src/host/docker/streams.js';

/** Cuts a buffer into pieces of the given sizes, as a socket may deliver it. */
function chunked(data: Buffer, sizes: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let offset = 0;
  for (const size of sizes) {
    pieces.push(data.subarray(offset, offset + size));
    offset += size;
  }
  if (offset < data.length) pieces.push(data.subarray(offset));
  return pieces;
}

describe('Docker stream decoding', () => {
  it('demultiplexes frames split at any byte boundary', async () => {
    const data = Buffer.concat([dockerFrame(1, 'hello '), dockerFrame(2, 'oops\n'), dockerFrame(1, 'world\n')]);
    for (let cut = 1; cut < data.length; cut++) {
      const result = await demuxDockerStream(Readable.from(chunked(data, [cut, 3])));
      expect(result).toEqual({ stdout: 'hello world\n', stderr: 'oops\n' });
    }
  });

  it('reads JSON lines split across chunks and keeps non-JSON lines as text', async () => {
    const text = '{"stream":"Step 1/3"}\r\n{"aux":{"ID":"sha256:abc"}}\nplain text\n{"status":"done"}';
    const messages = [];
    for await (const m of readJsonLines(Readable.from(chunked(Buffer.from(text), [5, 17, 9])))) messages.push(m);
    expect(messages).toEqual([{ stream: 'Step 1/3' }, { aux: { ID: 'sha256:abc' } }, { stream: 'plain text' }, { status: 'done' }]);
  });
});
