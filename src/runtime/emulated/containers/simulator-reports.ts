import { join } from 'node:path';
import { readChannelLosses } from '../../../channel/ns3/channel-losses.js';
import type { V2VMessage } from '../../../core/control/vehicle-context.js';
import { centreDistance } from '../../../core/physics/ttc.js';
import type { V2VTransmission } from '../../../measurement/recorder.js';
import { RefusalLog } from '../../../measurement/refusal-log.js';
import { RUN_FILES } from '../../../run/run-files.js';
import type { World } from '../../../world/world.js';
import {
  believedEventTime,
  type EventReport,
  TOPICS,
  V2V_FORGED_EVENT,
  V2V_REFUSED_EVENT,
  type V2VReport,
} from '../../rosbridge/control-topics.js';
import type { BodyLink } from './body-link.js';
import type { SimulatorLogs } from './simulator-logs.js';

/** More app events than this from one car in one run second is a flood (an app logs a few in a whole run). */
const EVENTS_PER_SECOND = 100;

/**
 * What the cars report to the simulator, into its logs: V2V sent and received, app events (a flood
 * dropped and counted, forged senders counted), and at the end why ns-3 lost frames.
 */
export class SimulatorReports {
  private readonly braking = new Map<string, boolean>();
  /** Events per car and run second: the count in the current second, and how many were dropped. */
  private readonly eventRate = new Map<string, { second: number; n: number; dropped: number }>();
  /** Datagrams a receiver dropped because their body claimed another sender, by receiver, sender and claim. */
  private readonly forged = new Map<string, number>();
  /** What the run refused from the cars' own code, via their V2V relays (summary.json `refusals`). */
  readonly refusals = new RefusalLog((t, car, event, detail) => this.logs.recorder.recordEvent(t, car, event, detail));

  constructor(
    private readonly world: World,
    private readonly logs: SimulatorLogs,
    private readonly bodies: BodyLink,
    private readonly names: readonly string[],
    private readonly runDir: string,
  ) {}

  /**
   * What the control link answered a car's code with an error (bridge-server.ts `onRefused`),
   * counted as the simulated runtime's own-code link counts it: `not-allowed` (the policy refused
   * the topic), `drive-stamp` (its drive command's stamp), else `bad-request`.
   */
  recordLinkRefusal(car: string, r: { op?: string; topic?: string; notAllowed: boolean; message: string }): void {
    const reason = r.notAllowed
      ? 'not-allowed'
      : r.topic === TOPICS.drive(car) && r.message.includes('header.stamp')
        ? 'drive-stamp'
        : 'bad-request';
    const detail = { ...(r.op ? { op: r.op } : {}), ...(r.topic ? { topic: r.topic } : {}), reason: r.message.slice(0, 300) };
    this.refusals.refuse(this.world.time, car, reason, detail);
  }

  /** Whether `car` said it brakes (an emergency-brake event). */
  isBraking(car: string): boolean {
    return this.braking.get(car) ?? false;
  }

  /** An app event, unless `car` floods the log with them; a refusal its V2V relay reports is counted (RefusalLog caps what is logged). */
  recordEvent(e: EventReport): void {
    const refused = e.event === V2V_REFUSED_EVENT ? e.detail?.refused : undefined;
    if (refused === 'v2v-destination' || refused === 'v2v-source') {
      const { refused: _r, ...detail } = e.detail!;
      return this.refusals.refuse(this.eventTime(e), e.vehicle, refused, detail);
    }
    if (this.overEventLimit(e.vehicle)) return;
    if (e.event === 'emergency-brake') this.braking.set(e.vehicle, true);
    if (e.event === V2V_FORGED_EVENT) this.countForged(e);
    this.logs.recorder.recordEvent(this.eventTime(e), e.vehicle, e.event, e.detail);
  }

  private eventTime(e: EventReport): number {
    return believedEventTime(e.t_s, this.world.time, this.world.timestep);
  }

  /** A V2V report of a run that started at `t0`. */
  recordV2V(r: V2VReport, t0: bigint): void {
    if (r.kind === 'sent') {
      const sentAt = this.sentAtOf(r, t0);
      this.logs.recorder.recordSent(this.transmission(r, sentAt));
      // a malformed message is counted once, at its sender, as in the simulated runtime
      if (r.malformed) this.refusals.refuse(sentAt, r.from, 'malformed', { type: r.type, to: r.to, id: r.id, reason: r.malformed });
      return this.captureSent(r, sentAt);
    }
    // A physical car stamps what it sends and receives on its own clock: moved to ours by its measured offset.
    const sentNs = this.bodies.toSimulatorNs(r.from, BigInt(r.sent_ns));
    const receivedNs = this.bodies.toSimulatorNs(r.to, BigInt(r.received_ns));
    const frame = { id: r.id, from: r.from, to: r.to, type: r.type, sentAt: Number(sentNs - t0) / 1e9, sizeBytes: r.size_bytes };
    // it reached the receiver, whose gate dropped it: v2v.csv `malformed`, in no message figure
    if (r.malformed) return this.logs.recorder.recordLost({ ...frame, reason: 'malformed' });
    this.logs.recorder.recordReceived({ ...frame, receivedAt: Number(receivedNs - t0) / 1e9 });
  }

  /** Why frames did not arrive, as the built-in channel program wrote it (a user's program writes nothing). */
  recordChannelLosses(): void {
    for (const loss of readChannelLosses(join(this.runDir, RUN_FILES.ns3Losses))) {
      const to = this.names[loss.node];
      const radio = {
        ...(loss.rxPowerDbm !== undefined ? { rxPowerDbm: loss.rxPowerDbm } : {}),
        ...(loss.lineOfSight !== undefined ? { lineOfSight: loss.lineOfSight } : {}),
      };
      if (to !== undefined) this.logs.recorder.recordLossOf(loss.id, to, loss.reason, radio);
    }
  }

  /** A car that floods the event log is misbehaving: what it floods is dropped, and the run says so. */
  floodReason(): string | undefined {
    const flooding = [...this.eventRate].filter(([, r]) => r.dropped > 0);
    if (!flooding.length) return undefined;
    return flooding.map(([car, r]) => `${car} published ${r.dropped} events beyond ${EVENTS_PER_SECOND} a second (dropped)`).join('; ');
  }

  /** A run in which a car sent V2V under another car's name measured something other than the channel. */
  forgedReason(): string | undefined {
    if (!this.forged.size) return undefined;
    const each = [...this.forged].map(([what, n]) => `${n} from ${what}`).join(', ');
    return `forged V2V senders (dropped at the receiver): ${each}`;
  }

  /** True when `car` has published more than EVENTS_PER_SECOND events in this run second: the event is dropped and counted. */
  private overEventLimit(car: string): boolean {
    const second = Math.floor(this.world.time);
    const r = this.eventRate.get(car) ?? { second, n: 0, dropped: 0 };
    if (r.second !== second) Object.assign(r, { second, n: 0 });
    r.n++;
    const over = r.n > EVENTS_PER_SECOND;
    if (over) r.dropped++;
    this.eventRate.set(car, r);
    return over;
  }

  private countForged(e: EventReport): void {
    const d = e.detail ?? {};
    const key = `${String(d.sender)} -> ${e.vehicle} claiming to be ${String(d.claimed)}`;
    this.forged.set(key, (this.forged.get(key) ?? 0) + 1);
  }

  /**
   * When a message was sent [run time, s]: the datagram's send stamp (as its receipts say; a
   * physical car's moved to our clock), else (a report without one) the current step's time.
   */
  private sentAtOf(r: Extract<V2VReport, { kind: 'sent' }>, t0: bigint): number {
    return r.sent_ns !== undefined ? Math.max(0, Number(this.bodies.toSimulatorNs(r.from, BigInt(r.sent_ns)) - t0) / 1e9) : this.world.time;
  }

  /**
   * The frame of a sent report in v2v.pcap, as the simulated runtime writes it: a standard
   * message's own GN packet, anything else its JSON in a GN packet built from the sender's state
   * now; at `sentAt`.
   */
  private captureSent(r: Extract<V2VReport, { kind: 'sent' }>, sentAt: number): void {
    const sender = this.world.cars.find((c) => c.spec.name === r.from);
    if (!sender) return;
    const msg: V2VMessage = { id: r.id, from: r.from, to: r.to, type: r.type, sentAt, body: r.body ?? {} };
    if (r.packet !== undefined) msg.packet = new Uint8Array(Buffer.from(r.packet, 'base64'));
    this.logs.capture.sent(msg, this.world.odometry(sender), r.size_bytes);
  }

  /** The receivers a sent report meant (every other car for a broadcast), and how far each was (now). */
  private transmission(
    r: { id: string; from: string; to: string; type: string; size_bytes: number; packet?: string; malformed?: string },
    sentAt: number,
  ): V2VTransmission {
    const sender = this.world.cars.find((c) => c.spec.name === r.from);
    const receivers = this.world.cars.filter((c) => c !== sender && (r.to === '*' || c.spec.name === r.to));
    const distances = sender
      ? new Map(receivers.map((c) => [c.spec.name, centreDistance(this.world.odometry(sender), this.world.odometry(c))]))
      : undefined;
    return {
      id: r.id,
      from: r.from,
      to: receivers.map((c) => c.spec.name),
      type: r.type,
      sentAt,
      sizeBytes: r.size_bytes,
      ...(distances ? { distances } : {}),
      ...(r.packet !== undefined ? { gnPacket: true } : {}),
      ...(r.malformed ? { malformed: true } : {}),
    };
  }
}
