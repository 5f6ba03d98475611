import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import { afterAll, describe, expect, it } from 'vitest';
import { McapStreamWriter } from '../../../../src/run/mcap/mcap-stream-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-mcap-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readBack(path: string) {
  const bytes = readFileSync(path);
  const reader = await McapIndexedReader.Initialize({
    readable: {
      size: async () => BigInt(bytes.length),
      read: async (offset, length) => bytes.subarray(Number(offset), Number(offset + length)),
    },
  });
  const messages: { topic: string; time: bigint; data: number[] }[] = [];
  for await (const m of reader.readMessages())
    messages.push({ topic: reader.channelsById.get(m.channelId)!.topic, time: m.logTime, data: [...m.data] });
  return { reader, messages };
}

describe('McapStreamWriter', () => {
  it('writes every message, in many small chunks and one grown for a message larger than a chunk, as an indexed file', async () => {
    const path = join(dir, 'many-chunks.mcap');
    const writer = new McapStreamWriter(path, { profile: 'ros2', library: 'test' }, 1_000_000_000n, 1024);
    const schema = writer.addSchema('std_msgs/msg/ByteMultiArray', 'ros2msg', 'uint8[] data');
    const a = writer.addChannel('/a', schema, 'cdr');
    const b = writer.addChannel('/b', schema, 'cdr');
    const expected: { topic: string; time: bigint; data: number[] }[] = [];
    for (let i = 0; i < 400; i++) {
      const size = i === 200 ? 5000 : 20 + (i % 37);
      const data = Array.from({ length: size }, (_, k) => (i * 31 + k) & 0xff);
      const channel = i % 3 === 0 ? b : a;
      writer.addMessage(channel, i * 1_000_000, Uint8Array.from(data));
      expected.push({ topic: channel === a ? '/a' : '/b', time: 1_000_000_000n + BigInt(i * 1_000_000), data });
    }
    writer.addMetadata('run', new Map([['id', 'x']]));
    expect(existsSync(path)).toBe(false); // written as <path>.partial until the end
    writer.end();
    const { reader, messages } = await readBack(path);
    expect(messages).toEqual(expected);
    expect(reader.chunkIndexes.length).toBeGreaterThan(10);
    expect(reader.statistics?.messageCount).toBe(400n);
    expect(reader.metadataIndexes.map((m) => m.name)).toEqual(['run']);
  });

  it('a file after a grown chunk, in the same process, is whole too', async () => {
    const path = join(dir, 'next.mcap');
    const writer = new McapStreamWriter(path, { profile: 'ros2', library: 'test' }, 0n, 1024);
    const channel = writer.addChannel('/c', writer.addSchema('s', 'ros2msg', 'uint8[] data'), 'cdr');
    for (let i = 0; i < 100; i++) writer.addMessage(channel, i, Uint8Array.of(i, i, i));
    writer.end();
    const { messages } = await readBack(path);
    expect(messages.map((m) => m.data)).toEqual(Array.from({ length: 100 }, (_, i) => [i, i, i]));
  });
});
