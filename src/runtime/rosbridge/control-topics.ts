import { z } from 'zod';
import { ProtocolError } from './protocol.js';

/** Version of the cavsim control link (topics and payloads below); see docs/control-protocol.md. */
export const CONTROL_PROTOCOL_VERSION = 'cavsim.control/1';

/** Topic names: the thesis's per-car namespaces plus cavsim's own /cavsim/* topics. */
export const TOPICS = {
  drive: (car: string) => `/${car}/drive`,
  odom: (car: string) => `/${car}/odom`,
  scan: (car: string) => `/${car}/scan`,
  collision: (car: string) => `/${car}/collision`,
  v2vSend: (car: string) => `/${car}/v2v/send`,
  v2vReceived: (car: string) => `/${car}/v2v/received`,
  /** A physical car (external role: body) reports its pose here, stamped on its own clock. */
  bodyOdom: (car: string) => `/${car}/body/odom`,
  /** Clock-sync probes to a physical car's device, and its answers. */
  bodySync: (car: string) => `/${car}/body/sync`,
  bodySyncReply: (car: string) => `/${car}/body/sync_reply`,
  clock: '/clock',
  simControl: '/sim_control',
  v2v: '/cavsim/v2v',
  events: '/cavsim/events',
  ready: '/cavsim/ready',
  status: '/cavsim/status',
} as const;

const epochNs = z.string().regex(/^\d{1,20}$/, 'epoch nanoseconds as a decimal string');

/** `/sim_control` data (JSON inside std_msgs/String). */
export const simControlSchema = z.discriminatedUnion('cmd', [
  z.object({ cmd: z.literal('start'), t0_epoch_ns: epochNs, clock: z.enum(['wall', 'sim']).optional() }),
  z.object({ cmd: z.literal('stop'), reason: z.string().optional() }),
]);
export type SimControl = z.infer<typeof simControlSchema>;

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
    packet: z.string().max(90_000).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64').optional(),
    /** Any other message's body: v2v.pcap wraps its JSON in a GN packet, as the simulated runtime does. */
    body: z.record(z.string(), z.unknown()).optional(),
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
      .describe("a standard message (CAM, DENM, CPM) as its GeoNetworking packet, base64: sent as is (type: cam, denm or cpm), its GN source this car's station"),
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

/** The event a receiver reports for a V2V datagram whose body claims another sender than the car it came from. */
export const V2V_FORGED_EVENT = 'v2v-forged';
/** A car's own code asked to send a standard message's packet that is not its own (another station's, or no GN packet). */
export const V2V_REFUSED_EVENT = 'v2v-refused';

/**
 * The run time an event is recorded at: the time a vehicle reports, when it is one the run has
 * reached (a vehicle's tick may lag the simulator by a step); anything else (negative, far in the
 * future, not finite) is not believed, and the event is recorded at `now`.
 */
export function believedEventTime(reported: number, now: number, stepS: number): number {
  return Number.isFinite(reported) && reported >= 0 && reported <= now + stepS ? reported : now;
}

/**
 * `/carN/collision` data (latched): the car hit another car or a wall in physics step `step` and is
 * frozen there. Published before that step's odometry, so a vehicle knows before it would tick.
 */
export const collisionReportSchema = z.object({
  vehicle: z.string(),
  step: z.number().int().nonnegative(),
  t_s: z.number(),
  /** What it hit in that step: other cars' names and/or 'wall'. */
  with: z.array(z.string()).min(1),
  speed_mps: z.number(),
});
export type CollisionReport = z.infer<typeof collisionReportSchema>;

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
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    throw new ProtocolError(`${topic}: data is not JSON`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ProtocolError(`${topic}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
