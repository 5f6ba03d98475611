import { compileCdrEncoder } from './cdr-encoder.js';
import type { RosTypeName } from './ros-message-types.js';
import type { RunTopic } from './run-topics.js';

/** What MCAP and the Foxglove protocol both need to declare a channel of ROS 2 CDR messages. */
export const CDR_CHANNEL = { messageEncoding: 'cdr', schemaEncoding: 'ros2msg' } as const;

/** One CDR writer per message type, shared by every topic of that type. */
export class CdrEncoders {
  private readonly writers = new Map<RosTypeName, (message: unknown) => Uint8Array>();
  private readonly topicType = new Map<string, RosTypeName>();

  constructor(topics: readonly RunTopic[]) {
    for (const t of topics) {
      this.topicType.set(t.topic, t.type);
      if (!this.writers.has(t.type)) this.writers.set(t.type, encoderFor(t.type));
    }
  }

  encode(topic: string, message: unknown): Uint8Array {
    const type = this.topicType.get(topic);
    if (!type) throw new Error(`no channel for topic ${topic}`);
    return this.writers.get(type)!(message);
  }
}

const compiled = new Map<RosTypeName, (message: unknown) => Uint8Array>();

/** Compiled once a process: a sweep's runs share them (encoding is synchronous, so sharing is safe). */
function encoderFor(type: RosTypeName): (message: unknown) => Uint8Array {
  let encode = compiled.get(type);
  if (!encode) compiled.set(type, (encode = compileCdrEncoder(type)));
  return encode;
}
