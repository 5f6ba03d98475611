/** Version of the cavsim control link (topic names here; payloads in control-topics.ts); see docs/control-protocol.md. */
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

/** The event a receiver reports for a V2V datagram whose body claims another sender than the car it came from. */
export const V2V_FORGED_EVENT = 'v2v-forged';
/** A car's own code asked to send a standard message's packet that is not its own (another station's, or no GN packet). */
export const V2V_REFUSED_EVENT = 'v2v-refused';
