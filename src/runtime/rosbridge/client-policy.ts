import { type SimulatorStatus, TOPICS } from './control-topics.js';
import type { JsonObject } from './protocol.js';

/** What a client of the control link may do; a refusal is the reason, sent back as a status error. */
export interface ClientPolicy {
  publish(address: string, topic: string, msg: JsonObject): string | undefined;
  subscribe(address: string, topic: string): string | undefined;
  /** Topics whose every message is shown to each client through `viewOf`. */
  readonly viewed: ReadonlySet<string>;
  /** What a client may see of a message on a viewed topic. */
  viewOf?(address: string, topic: string, msg: JsonObject): JsonObject;
}

export const ORCHESTRATOR = 'orchestrator';

/**
 * The simulator knows its clients by address (`{"10.211.7.1": "orchestrator", "10.211.7.10": "car0"}`;
 * addresses cannot be forged, the containers have no raw sockets). A vehicle may publish only its
 * own drive commands and reports about itself, and read only its own topics, the run's control
 * topics and the odometry of the cars its scenario lets it observe: the control link is never a
 * path from one vehicle to another.
 *
 * `v2vRelays`: the `address:port` of each own-code car's V2V relay, which shares the car's address.
 * That car's V2V reports (v2v.csv) are taken from its relay alone: its own code could otherwise
 * report receipts that never crossed the channel.
 */
export function clientPolicy(
  clients: Record<string, string>,
  observes: Record<string, readonly string[]>,
  bodies: ReadonlySet<string> = new Set(),
  v2vRelays: ReadonlySet<string> = new Set(),
): ClientPolicy {
  const relayed = new Set([...v2vRelays].map((key) => clients[key]).filter((car) => car !== undefined));
  const policy = policyFor((remote) => clientOf(clients, remote), observes, bodies);
  if (!relayed.size) return policy;
  return {
    ...policy,
    publish(address, topic, msg) {
      const client = clientOf(clients, address);
      if (topic === TOPICS.v2v && client !== undefined && relayed.has(client) && !v2vRelays.has(address.replace(/^::ffff:/, '')))
        return `${client}'s V2V reports come from its V2V relay; its own code may not publish ${TOPICS.v2v}`;
      return policy.publish(address, topic, msg);
    },
  };
}

/**
 * A client by its address and port (a device relayed by the host from a fixed source port of the
 * gateway's address), else by its address alone.
 */
export function clientOf(clients: Record<string, string>, remote: string): string | undefined {
  const plain = remote.replace(/^::ffff:/, '');
  return clients[plain] ?? clients[plain.replace(/:\d+$/, '')];
}

/**
 * The simulated runtime gives each vehicle's own code a link of its own on loopback: whoever
 * connects to it is that vehicle, with the same rights as above.
 */
export function singleVehiclePolicy(vehicle: string, observes: readonly string[]): ClientPolicy {
  return policyFor(() => vehicle, { [vehicle]: observes });
}

/**
 * A physical car's device (role: body) reports its own pose and answers clock probes instead of
 * driving: it may not publish a drive command, not even its own car's; its V2V is its own NIC's.
 */
function policyFor(
  who: (address: string) => string | undefined,
  observes: Record<string, readonly string[]>,
  bodies: ReadonlySet<string> = new Set(),
): ClientPolicy {
  return {
    publish(address, topic, msg) {
      const client = who(address);
      if (!client) return `${address} is not a client of this run`;
      if (client === ORCHESTRATOR) return topic === TOPICS.simControl ? undefined : `the orchestrator publishes only ${TOPICS.simControl}`;
      if (bodies.has(client)) {
        if (topic === TOPICS.bodyOdom(client) || topic === TOPICS.bodySyncReply(client)) return undefined;
        if (topic === TOPICS.drive(client))
          return `${client} is a physical car (role: body): it reports its pose on ${TOPICS.bodyOdom(client)}, cavsim never drives it`;
      } else if (topic === TOPICS.drive(client) || topic === TOPICS.v2vSend(client) || topic === TOPICS.v2vReceived(client))
        return undefined;
      if (topic !== TOPICS.ready && topic !== TOPICS.v2v && topic !== TOPICS.events) return `${client} may not publish ${topic}`;
      return reportIsAbout(client, msg) ? undefined : `${client} may publish on ${topic} only about itself`;
    },
    subscribe(address, topic) {
      const client = who(address);
      if (!client) return `${address} is not a client of this run`;
      if (client === ORCHESTRATOR) return undefined;
      const own = bodies.has(client)
        ? [TOPICS.odom(client), TOPICS.scan(client), TOPICS.collision(client), TOPICS.bodySync(client)]
        : [
            TOPICS.drive(client),
            TOPICS.odom(client),
            TOPICS.scan(client),
            TOPICS.collision(client),
            TOPICS.v2vSend(client),
            TOPICS.v2vReceived(client),
          ];
      const shared: string[] = [TOPICS.simControl, TOPICS.status, TOPICS.clock];
      const observed = (observes[client] ?? []).map((car) => TOPICS.odom(car));
      return [...own, ...shared, ...observed].includes(topic) ? undefined : `${client} may not subscribe to ${topic}`;
    },
    viewed: new Set([TOPICS.status]),
    viewOf(address, _topic, msg) {
      const client = who(address);
      if (client === ORCHESTRATOR) return msg;
      return { data: statusSeenBy(String(msg.data), [client ?? '', ...(observes[client ?? ''] ?? [])]) };
    },
  };
}

/**
 * A vehicle's view of `/cavsim/status`: the run's phase and progress, its own car and the cars it
 * observes; not the others' speeds or braking, nor the run's closest TTC (which tells of them).
 */
function statusSeenBy(data: string, visible: readonly string[]): string {
  let status: Partial<SimulatorStatus>;
  try {
    status = JSON.parse(data) as Partial<SimulatorStatus>;
  } catch {
    return '{}';
  }
  return JSON.stringify({ ...status, cars: (status.cars ?? []).filter((c) => visible.includes(c.name)), min_ttc_s: null });
}

/** A /cavsim/* report (std_msgs/String with JSON data) names its vehicle as `vehicle`, or as `from` (sent) / `to` (received). */
function reportIsAbout(vehicle: string, msg: JsonObject): boolean {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(String(msg.data)) as Record<string, unknown>;
  } catch {
    return false;
  }
  if ('vehicle' in data) return data.vehicle === vehicle;
  if (data.kind === 'sent') return data.from === vehicle;
  if (data.kind === 'received') return data.to === vehicle;
  return false;
}
