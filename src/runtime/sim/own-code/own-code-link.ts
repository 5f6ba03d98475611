import { performance } from 'node:perf_hooks';
import type { LaserScan, Odometry } from '../../../core/control/vehicle-context.js';
import type { DriveCommand } from '../../../core/physics/types.js';
import type { RefusalReason } from '../../../measurement/refusal-log.js';
import type { ResolvedVehicle } from '../../../scenario/resolved.js';
import { connectableWsUrl } from '../../../util/connect-address.js';
import type { TickCost } from '../../../world/compute-time.js';
import { BridgeServer } from '../../rosbridge/bridge-server.js';
import { singleVehiclePolicy } from '../../rosbridge/client-policy.js';
import {
  CONTROL_PROTOCOL_VERSION,
  type CollisionReport,
  type EventReport,
  eventReportSchema,
  parseJsonData,
  readyReportSchema,
  type SimulatorStatus,
  TOPICS,
  type V2VReceivedData,
  type V2VSendRequest,
  v2vSendSchema,
} from '../../rosbridge/control-topics.js';
import { LaserScanEncoder } from '../../rosbridge/laser-scan-msg.js';
import { clockMsg, driveStampNs, MSG_TYPES, odometryMsg, parseDriveMsg, parseStringMsg, stringMsg } from '../../rosbridge/ros-messages.js';

export interface TickInput {
  step: number;
  stampNs: bigint;
  own: Odometry;
  observed: ReadonlyMap<string, Odometry>;
  scan?: LaserScan;
  received: readonly V2VReceivedData[];
}

/** A vehicle's answer to one tick: its drive command, what it asked to send and log meanwhile, and what it cost. */
export interface TickAnswer extends TickCost {
  command: DriveCommand;
  sends: V2VSendRequest[];
  events: EventReport[];
}

/** What arrived from code that runs without the barrier since it was last asked: the newest command wins. */
export interface CollectedAnswers {
  command?: DriveCommand;
  /** Each stamped drive command: the tick it answers and the wall-clock time since that tick was sent [s]. */
  answers: { stampNs: bigint; wallS: number }[];
  sends: V2VSendRequest[];
  events: EventReport[];
}

/** What the link refused from the code, one entry per reason since it was last asked: the first one's detail and how many. */
export interface LinkRefusal {
  reason: RefusalReason;
  detail: Record<string, unknown>;
  count: number;
}

export interface LinkOptions {
  /** Where to listen (default: 127.0.0.1 on a free port). */
  listen?: { host: string; port: number };
  /** Refuse a second client while one is connected (an external device speaks alone for its car). */
  oneClient?: boolean;
  /** Ticks are published and not waited for; answers are collected (`collect`). */
  freeRunning?: boolean;
  log?: (line: string) => void;
}

interface Waiting {
  stampNs: bigint;
  wall0: number;
  cpu0: number | undefined;
  resolve: (answer: TickAnswer) => void;
  reject: (err: Error) => void;
}

/**
 * The control link to one vehicle's own code in virtual time: a rosbridge server on loopback with
 * the emulated runtime's topics plus /clock, where every control tick is a barrier. The runtime
 * publishes the tick (clock, V2V arrivals, scan, odometry) and waits until the code answers with a
 * drive command stamped with that odometry; what the code published before the answer (V2V sends,
 * events) belongs to that tick, so the exchange is the same in every run.
 */
export class OwnCodeLink {
  private readonly vehicle: string;
  private readonly scanEncoder?: LaserScanEncoder;
  private sends: V2VSendRequest[] = [];
  private events: EventReport[] = [];
  private waiting?: Waiting;
  private readyWaiter?: { resolve: () => void; reject: (err: Error) => void };
  private isReady = false;
  private broken?: Error;
  /** Without the barrier: when each recent tick was sent [performance.now() ms], and what came back since. */
  private readonly sentAt = new Map<bigint, number>();
  private collected: CollectedAnswers = { answers: [], sends: [], events: [] };
  /** The stamp of the newest tick published: a drive command stamped later answers nothing yet sent. */
  private newestStampNs?: bigint;
  private refusals = new Map<RefusalReason, LinkRefusal>();
  /** The CPU time of the code's process so far [s], where readable. */
  cpuSeconds: () => number | undefined = () => undefined;

  private constructor(
    private readonly server: BridgeServer,
    spec: ResolvedVehicle,
    private readonly duration: number,
    private readonly freeRunning = false,
  ) {
    this.vehicle = spec.name;
    this.url = connectableWsUrl(server.host, server.port);
    const car = spec.name;
    server.advertise(TOPICS.clock, MSG_TYPES.clock);
    server.advertise(TOPICS.simControl, MSG_TYPES.string, { latch: true });
    server.advertise(TOPICS.status, MSG_TYPES.string, { latch: true });
    server.advertise(TOPICS.collision(car), MSG_TYPES.string, { latch: true });
    server.advertise(TOPICS.v2vReceived(car), MSG_TYPES.string);
    for (const name of [car, ...spec.observes]) server.advertise(TOPICS.odom(name), MSG_TYPES.odometry);
    if (spec.lidar) {
      server.advertise(TOPICS.scan(car), MSG_TYPES.laserScan);
      this.scanEncoder = new LaserScanEncoder({ frameId: `${car}/base_link`, scanTime: 1 / spec.lidar.rate });
    }
    server.subscribe(TOPICS.drive(car), MSG_TYPES.drive, (msg) => this.onDrive(parseDriveMsg(msg), driveStampNs(msg, this.newestStampNs)));
    server.onRefused = ({ op, topic, notAllowed, message }) => {
      const reason: RefusalReason = notAllowed
        ? 'not-allowed'
        : topic === TOPICS.drive(car) && message.includes('header.stamp')
          ? 'drive-stamp'
          : 'bad-request';
      const known = this.refusals.get(reason);
      if (known) known.count++;
      else
        this.refusals.set(reason, {
          reason,
          detail: { ...(op ? { op } : {}), ...(topic ? { topic } : {}), reason: message.slice(0, 300) },
          count: 1,
        });
    };
    server.subscribe(TOPICS.ready, MSG_TYPES.string, (msg) => {
      parseJsonData(readyReportSchema, parseStringMsg(msg), TOPICS.ready);
      this.isReady = true;
      this.readyWaiter?.resolve();
    });
    server.subscribe(TOPICS.events, MSG_TYPES.string, (msg) =>
      this.events.push(parseJsonData(eventReportSchema, parseStringMsg(msg), TOPICS.events)),
    );
    server.subscribe(TOPICS.v2vSend(car), MSG_TYPES.string, (msg) =>
      this.sends.push(parseJsonData(v2vSendSchema, parseStringMsg(msg), TOPICS.v2vSend(car))),
    );
    // The runtime logs V2V itself; reports written for the emulated runtime are accepted and not needed.
    server.subscribe(TOPICS.v2v, MSG_TYPES.string, () => {});
    this.status('waiting', 0);
  }

  static async open(spec: ResolvedVehicle, duration: number, opts: LinkOptions = {}): Promise<OwnCodeLink> {
    const { host, port } = opts.listen ?? { host: '127.0.0.1', port: 0 };
    const server = await BridgeServer.listen({
      host,
      port,
      policy: singleVehiclePolicy(spec.name, spec.observes),
      ...(opts.oneClient ? { oneClient: true } : {}),
      ...(opts.log ? { log: opts.log } : {}),
    });
    return new OwnCodeLink(server, spec, duration, opts.freeRunning);
  }

  /** Where the code connects (read once: a closed server has no address). */
  readonly url: string;

  /** Told when a client connects or goes. */
  set onClient(listener: BridgeServer['onClient']) {
    this.server.onClient = listener;
  }

  /** Settles when the code has said it is ready (subscribed); rejects if the link breaks first. */
  whenReady(): Promise<void> {
    if (this.isReady) return Promise.resolve();
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => (this.readyWaiter = { resolve, reject }));
  }

  start(): void {
    this.status('running', 0);
    this.server.publish(TOPICS.simControl, stringMsg(JSON.stringify({ cmd: 'start', t0_epoch_ns: '0', clock: 'sim' })));
  }

  /** What the link refused since the last call, per reason. */
  takeRefusals(): LinkRefusal[] {
    if (!this.refusals.size) return [];
    const out = [...this.refusals.values()];
    this.refusals = new Map();
    return out;
  }

  /** Publishes one tick and waits for the code's answer. */
  tick(input: TickInput): Promise<TickAnswer> {
    if (this.broken) return Promise.reject(this.broken);
    const answer = new Promise<TickAnswer>((resolve, reject) => {
      this.waiting = { stampNs: input.stampNs, wall0: performance.now(), cpu0: this.cpuSeconds(), resolve, reject };
    });
    this.publishTick(input);
    return answer;
  }

  /** Without the barrier: publishes one tick and returns at once. */
  publish(input: TickInput): void {
    if (this.broken) throw this.broken;
    this.sentAt.set(input.stampNs, performance.now());
    // A device that never answers must not grow the table without bound.
    if (this.sentAt.size > 1000) this.sentAt.delete(this.sentAt.keys().next().value!);
    this.publishTick(input);
  }

  /** Without the barrier: what arrived since the last call. */
  collect(): CollectedAnswers {
    if (this.broken) throw this.broken;
    const out = { ...this.collected, sends: this.sends, events: this.events };
    this.collected = { answers: [], sends: [], events: [] };
    this.sends = [];
    this.events = [];
    return out;
  }

  private publishTick(input: TickInput): void {
    const car = this.vehicle;
    this.newestStampNs = input.stampNs;
    this.server.corked(() => {
      this.server.publish(TOPICS.clock, clockMsg(input.stampNs));
      for (const received of input.received) this.server.publish(TOPICS.v2vReceived(car), stringMsg(JSON.stringify(received)));
      if (input.scan && this.scanEncoder) {
        const scan = input.scan;
        this.server.publishJson(TOPICS.scan(car), () => this.scanEncoder!.encode(scan, input.stampNs));
      }
      // Other cars first: a client that answers on its own odometry has seen theirs by then.
      for (const [name, odom] of input.observed) this.server.publish(TOPICS.odom(name), odometryMsg(name, odom, input.stampNs));
      this.server.publish(TOPICS.odom(car), odometryMsg(car, input.own, input.stampNs));
    });
  }

  collided(report: CollisionReport): void {
    this.server.publish(TOPICS.collision(this.vehicle), stringMsg(JSON.stringify(report)));
  }

  /** Ends every wait with `err`: the code died or stopped answering. */
  fail(err: Error): void {
    this.broken ??= err;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(this.broken);
    if (!this.isReady) this.readyWaiter?.reject(this.broken);
  }

  stop(reason: string, t: number): void {
    this.status('stopping', t);
    this.server.publish(TOPICS.simControl, stringMsg(JSON.stringify({ cmd: 'stop', reason })));
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private onDrive(command: DriveCommand, stampNs: bigint | undefined): void {
    if (this.freeRunning) return this.onFreeDrive(command, stampNs);
    const w = this.waiting;
    // An answer to an earlier tick, or a command outside any tick, does not answer this one.
    if (!w || (stampNs !== undefined && stampNs < w.stampNs)) return;
    this.waiting = undefined;
    const wallS = (performance.now() - w.wall0) / 1000;
    const cpu1 = w.cpu0 === undefined ? undefined : this.cpuSeconds();
    const answer: TickAnswer = {
      command,
      sends: this.sends,
      events: this.events,
      wallS,
      ...(cpu1 !== undefined ? { cpuS: cpu1 - w.cpu0! } : {}),
    };
    this.sends = [];
    this.events = [];
    w.resolve(answer);
  }

  private onFreeDrive(command: DriveCommand, stampNs: bigint | undefined): void {
    this.collected.command = command;
    const sent = stampNs === undefined ? undefined : this.sentAt.get(stampNs);
    if (stampNs === undefined || sent === undefined) return;
    this.collected.answers.push({ stampNs, wallS: (performance.now() - sent) / 1000 });
    for (const stamp of this.sentAt.keys()) {
      if (stamp > stampNs) break;
      this.sentAt.delete(stamp);
    }
  }

  private status(phase: SimulatorStatus['phase'], t: number): void {
    const status: SimulatorStatus = {
      protocol: CONTROL_PROTOCOL_VERSION,
      phase,
      vehicles: [this.vehicle],
      ready: this.isReady ? [this.vehicle] : [],
      t_s: t,
      duration_s: this.duration,
      cars: [],
      min_ttc_s: null,
      lateness: null,
    };
    this.server.publish(TOPICS.status, stringMsg(JSON.stringify(status)));
  }
}
