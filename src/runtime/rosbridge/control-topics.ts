import { z } from '../../util/zod.js';
import { jsonOfData, ProtocolError } from './protocol.js';
import type { CONTROL_PROTOCOL_VERSION } from './topic-names.js';

export { type CollisionReport, parseCollisionReport, parseSimControl, type SimControl } from './simulator-notices.js';
export { CONTROL_PROTOCOL_VERSION, TOPICS, V2V_FORGED_EVENT, V2V_REFUSED_EVENT } from './topic-names.js';

const epochNs = z.string().regex(/^\d{1,20}$/, 'epoch nanoseconds as a decimal string');

/** `/cavsim/v2v` data: a vehicle reports each datagram it sent and each it received. */
export const v2vReportSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('sent'),
    id: z.string(),
    from: z.string(),
    to: z.string(),
    type: z.string(),
    size_bytes: z.number().int().nonnegative(),
    /** When the datagram was stamped (its `sentAtNs`): v2v.pcap's time of the frame. */
    sent_ns: epochNs.optional(),
    /** A standard message's GeoNetworking packet as sent, base64: v2v.pcap's frame carries it. */
    packet: z
      .string()
      .max(90_000)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64')
      .optional(),
    /** Any other message's body: v2v.pcap wraps its JSON in a GN packet, as the simulated runtime does. */
    body: z.record(z.string(), z.unknown()).optional(),
    /** It claims to be a CAM, DENM or CPM and is none (message-gate.ts): why. Every receiver drops it. */
    malformed: z.string().max(500).optional(),
  }),
  z.object({
    kind: z.literal('received'),
    id: z.string(),
    from: z.string(),
    to: z.string(),
    type: z.string(),
    sent_ns: epochNs,
    received_ns: epochNs,
    size_bytes: z.number().int().nonnegative(),
    /** The receiver's gate dropped it (message-gate.ts): why. Its apps never saw it; v2v.csv says `malformed`. */
    malformed: z.string().max(500).optional(),
  }),
]);
export type V2VReport = z.infer<typeof v2vReportSchema>;

/**
 * `/carN/v2v/send` data: a vehicle's own code asks for a V2V datagram. The runtime sends it through
 * the channel (the real UDP socket in emulation, the lock-step channel in virtual time).
 */
export const v2vSendSchema = z
  .object({
    to: z.string().min(1).describe('a vehicle name, or * for every other vehicle'),
    type: z.string().min(1).max(64).default('data'),
    body: z.record(z.string(), z.unknown()).default({}),
    size_bytes: z.number().int().min(1).max(65507).optional().describe('pad the datagram to this many bytes'),
    packet: z
      .string()
      .max(2000)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'base64')
      .optional()
      .describe(
        "a standard message (CAM, DENM, CPM) as its GeoNetworking packet, base64: sent as is (type: cam, denm or cpm), its GN source this car's station",
      ),
  })
  .strict();
export type V2VSendRequest = z.infer<typeof v2vSendSchema>;

/** `/carN/body/sync` data: a probe the simulator sent at `t1_ns` on its clock. */
export interface BodySyncProbe {
  seq: number;
  t1_ns: string;
}

/** `/carN/body/sync_reply` data: the probe's `seq` and `t1_ns`, with when the device received it (`t2_ns`) and answered (`t3_ns`) on its clock. */
export const bodySyncReplySchema = z.object({ seq: z.number().int().nonnegative(), t1_ns: epochNs, t2_ns: epochNs, t3_ns: epochNs });
export type BodySyncReply = z.infer<typeof bodySyncReplySchema>;

/** `/carN/v2v/received` data: a datagram that reached the car, with run times of sending and arrival [s]. */
export interface V2VReceivedData {
  id: string;
  from: string;
  to: string;
  type: string;
  body: Record<string, unknown>;
  /** A standard message's GeoNetworking packet as it crossed the channel, base64 (`body` is it decoded). */
  packet?: string;
  sent_s: number;
  received_s: number;
}

/** `/cavsim/events` data: an app event (brake-sent, emergency-brake, ...) at run time t_s. */
export const eventReportSchema = z.object({
  vehicle: z.string(),
  t_s: z.number(),
  event: z.string(),
  detail: z.record(z.string(), z.unknown()).optional(),
});
export type EventReport = z.infer<typeof eventReportSchema>;

/**
 * The run time an event is recorded at: the time a vehicle reports, when it is one the run has
 * reached (a vehicle's tick may lag the simulator by a step); anything else (negative, far in the
 * future, not finite) is not believed, and the event is recorded at `now`.
 */
export function believedEventTime(reported: number, now: number, stepS: number): number {
  return Number.isFinite(reported) && reported >= 0 && reported <= now + stepS ? reported : now;
}

/**
 * `/cavsim/ready` data: a vehicle has subscribed and bound its V2V socket. For a vehicle running its
 * own code in emulation, cavsim's V2V relay beside it says so too, with `part: "v2v-relay"`.
 */
export const readyReportSchema = z.object({ vehicle: z.string(), part: z.literal('v2v-relay').optional() });
export type ReadyReport = z.infer<typeof readyReportSchema>;

/** `/cavsim/status` data, published (latched) by the simulator. */
export interface SimulatorStatus {
  protocol: typeof CONTROL_PROTOCOL_VERSION;
  /** `stopping`: the run is over and vehicles are being told to stop; `stopped`: summary.json is written. */
  phase: 'waiting' | 'running' | 'stopping' | 'stopped';
  vehicles: string[];
  ready: string[];
  t_s: number;
  duration_s: number;
  cars: { name: string; v: number; braking: boolean; collided: boolean }[];
  min_ttc_s: number | null;
  lateness: { p99_ms: number; max_ms: number } | null;
  status?: string;
  reason?: string;
}

/** Parses the JSON text carried in a std_msgs/String `data` field against a schema. */
export function parseJsonData<T>(schema: z.ZodType<T>, data: string, topic: string): T {
  const parsed = schema.safeParse(jsonOfData(data, topic));
  if (!parsed.success) {
    throw new ProtocolError(`${topic}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
