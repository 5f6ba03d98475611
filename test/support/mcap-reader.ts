import { open } from 'node:fs/promises';
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import { McapIndexedReader } from '@mcap/core';
import { FileHandleReadable } from '@mcap/nodejs';

export interface DecodedMessage {
  topic: string;
  schema: string;
  logTime: bigint;
  message: Record<string, unknown>;
}

/** Reads a whole MCAP file as Foxglove would: indexed, each schema parsed as ROS 2, each message decoded from CDR. */
export async function readMcap(file: string) {
  const handle = await open(file);
  try {
    const reader = await McapIndexedReader.Initialize({ readable: new FileHandleReadable(handle) });
    const decoders = new Map<
      number,
      { topic: string; schema: string; schemaEncoding: string; messageEncoding: string; reader: MessageReader }
    >();
    for (const channel of reader.channelsById.values()) {
      const schema = reader.schemasById.get(channel.schemaId)!;
      decoders.set(channel.id, {
        topic: channel.topic,
        schema: schema.name,
        schemaEncoding: schema.encoding,
        messageEncoding: channel.messageEncoding,
        reader: new MessageReader(parse(new TextDecoder().decode(schema.data), { ros2: true })),
      });
    }
    const messages: DecodedMessage[] = [];
    for await (const m of reader.readMessages()) {
      const d = decoders.get(m.channelId)!;
      messages.push({ topic: d.topic, schema: d.schema, logTime: m.logTime, message: d.reader.readMessage(m.data) });
    }
    return { header: reader.header, metadata: reader.metadataIndexes, channels: [...decoders.values()], messages };
  } finally {
    await handle.close();
  }
}

export const countOn = (messages: readonly DecodedMessage[], topic: string) => messages.filter((m) => m.topic === topic).length;
