/**
 * The rosbridge v2 operations cavsim speaks (topics only), parsed from and encoded to JSON text.
 * Spec: https://github.com/RobotWebTools/rosbridge_suite/blob/ros2/ROSBRIDGE_PROTOCOL.md
 */

export const ROSBRIDGE_PROTOCOL = '2.0';

export type JsonObject = Record<string, unknown>;

export type ClientOp =
  | { op: 'advertise'; id?: string; topic: string; type: string; latch: boolean }
  | { op: 'unadvertise'; id?: string; topic: string }
  | { op: 'publish'; id?: string; topic: string; msg: JsonObject }
  | { op: 'subscribe'; id?: string; topic: string; type?: string; compression?: string }
  | { op: 'unsubscribe'; id?: string; topic: string };

export type StatusLevel = 'error' | 'warning' | 'info';

export type ServerOp = { op: 'publish'; topic: string; msg: JsonObject } | { op: 'status'; level: StatusLevel; msg: string; id?: string };

export type ParseResult = { ok: true; op: ClientOp } | { ok: false; error: string; id?: string };

/** ROS 2 topic names: absolute, segments of letters, digits and underscores. */
const TOPIC_NAME = /^\/[A-Za-z_][A-Za-z0-9_]*(\/[A-Za-z_][A-Za-z0-9_]*)*$/;
/** `pkg/msg/Type`, or the ROS 1 spelling `pkg/Type` that rosbridge also accepts. */
const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_]*\/(msg\/)?[A-Za-z][A-Za-z0-9_]*$/;

const SUPPORTED = ['advertise', 'unadvertise', 'publish', 'subscribe', 'unsubscribe'];

/** `std_msgs/String` and `std_msgs/msg/String` name the same type. */
export function canonicalType(type: string): string {
  const parts = type.split('/');
  return parts.length === 2 ? `${parts[0]}/msg/${parts[1]}` : type;
}

export function isTopicName(topic: string): boolean {
  return TOPIC_NAME.test(topic);
}

/** Parses one text frame. Unknown fields are ignored, as rosbridge does; bad ones are errors. */
export function parseClientOp(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: 'frame is not JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, error: 'frame is not a JSON object' };
  const o = raw as JsonObject;
  const id = typeof o.id === 'string' ? o.id : undefined;
  const fail = (error: string): ParseResult => ({ ok: false, error, ...(id !== undefined ? { id } : {}) });
  if (typeof o.op !== 'string') return fail('missing "op"');
  if (!SUPPORTED.includes(o.op)) return fail(`unsupported op "${o.op}" (cavsim supports ${SUPPORTED.join(', ')})`);
  if (typeof o.topic !== 'string' || !isTopicName(o.topic))
    return fail(`op ${o.op}: "topic" must be an absolute ROS name such as /car0/drive`);
  const base = { ...(id !== undefined ? { id } : {}), topic: o.topic };
  switch (o.op) {
    case 'advertise':
      if (typeof o.type !== 'string' || !TYPE_NAME.test(o.type))
        return fail(`advertise ${o.topic}: "type" must be a message type such as std_msgs/msg/String`);
      return { ok: true, op: { op: 'advertise', ...base, type: canonicalType(o.type), latch: o.latch === true } };
    case 'unadvertise':
      return { ok: true, op: { op: 'unadvertise', ...base } };
    case 'publish':
      if (typeof o.msg !== 'object' || o.msg === null || Array.isArray(o.msg))
        return fail(`publish ${o.topic}: "msg" must be a JSON object`);
      return { ok: true, op: { op: 'publish', ...base, msg: o.msg as JsonObject } };
    case 'subscribe': {
      if (o.type !== undefined && (typeof o.type !== 'string' || !TYPE_NAME.test(o.type)))
        return fail(`subscribe ${o.topic}: "type" is not a message type`);
      const compression = typeof o.compression === 'string' ? o.compression : undefined;
      return {
        ok: true,
        op: {
          op: 'subscribe',
          ...base,
          ...(typeof o.type === 'string' ? { type: canonicalType(o.type) } : {}),
          ...(compression ? { compression } : {}),
        },
      };
    }
    default:
      return { ok: true, op: { op: 'unsubscribe', ...base } };
  }
}

export function encodeServerOp(op: ServerOp): string {
  return JSON.stringify(op);
}

/** The publish op for a message already encoded as JSON text; same text as encodeServerOp would give. */
export function encodePublishFrame(topic: string, msgJson: string): string {
  return `{"op":"publish","topic":${JSON.stringify(topic)},"msg":${msgJson}}`;
}

/** Errors a topic handler throws to reject a message; the sender gets them back as a status op. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** The JSON value carried in a std_msgs/String `data` field, or a ProtocolError naming the topic. */
export function jsonOfData(data: string, topic: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ProtocolError(`${topic}: data is not JSON`);
  }
}
