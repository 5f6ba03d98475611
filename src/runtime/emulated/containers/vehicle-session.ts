import type { LaserScan, Odometry, V2VMessage } from '../../../core/control/vehicle-context.js';
import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
import { standardMessageProblem } from '../../../core/v2x/facilities/message-gate.js';
import type { ResolvedScenario, ResolvedVehicle } from '../../../scenario/resolved.js';
import { bodySizes, createVehicleApps } from '../../../world/create-apps.js';
import { stepSchedule } from '../../../world/step-schedule.js';
import { VehicleAgent } from '../../../world/vehicle-agent.js';
import type { BridgeClient } from '../../rosbridge/bridge-client.js';
import type { EventReport, V2VReport } from '../../rosbridge/control-topics.js';
import { parseLaserScanMsg } from '../../rosbridge/laser-scan-msg.js';
import { driveMsg, MSG_TYPES, parseOdometryMsg, parseStringMsg, stringMsg } from '../../rosbridge/ros-messages.js';
import { parseCollisionReport, parseSimControl } from '../../rosbridge/simulator-notices.js';
import { TOPICS, V2V_FORGED_EVENT } from '../../rosbridge/topic-names.js';
import type { Arrival, ForgedArrival, V2VEndpoint } from '../v2v/transport.js';
import type { HostPort, VehicleEnv } from './process-env.js';
import type { WallClock } from './wall-clock.js';

export interface VehicleProcessConfig {
  runDir: string;
  vehicle: string;
  simUrl: string;
  peers: VehicleEnv['peers'];
  bind: HostPort;
  clock: WallClock;
  connectTimeoutMs?: number;
  log?: (line: string) => void;
  /** The scenario's map, for apps that look at it (`appsNeedMap`). */
  grid?: OccupancyGrid;
}

export interface VehicleOutcome {
  exitCode: 0 | 1;
  reason: string;
}

/** What a session sends V2V through: the car's UDP endpoint, or the rehearsal's stand-in. */
export type SessionV2V = Pick<V2VEndpoint, 'sendStamped' | 'close'>;

type StampedOdometry = Odometry & { stampNs: bigint };
type StampedScan = LaserScan & { stampNs: bigint };

/**
 * The vehicle container's side of the control link: runs the car's controller and V2V apps
 * (VehicleAgent) at the control rate, driven by the simulator's odometry stamps, so controllers
 * tick on the same physics steps, with the same scans, as in the simulated runtime, and stop
 * ticking once the simulator says the car collided.
 */
export class VehicleSession {
  readonly finished: Promise<VehicleOutcome>;
  private resolveFinished!: (o: VehicleOutcome) => void;
  private readonly agent: VehicleAgent;
  private readonly observed = new Map<string, StampedOdometry>();
  private readonly stepNs: number;
  private readonly timestep: number;
  private readonly period: number;
  private readonly log: (line: string) => void;
  /** Physics steps between two scans; undefined for a car without a lidar. */
  private readonly scanPeriod?: number;
  private own?: StampedOdometry;
  private scan?: StampedScan;
  /** The physics step in which the car collided: no tick from then on, as in the simulated runtime. */
  private collidedStep?: number;
  private t0?: bigint;
  private lastTickedStep = -1;
  /** The physics step time of the tick running now [s]; undefined between ticks. */
  private tickTime?: number;
  private ticks = 0;
  private ending = false;

  constructor(
    scenario: ResolvedScenario,
    private readonly spec: ResolvedVehicle,
    private readonly client: BridgeClient,
    private readonly endpoint: SessionV2V,
    private readonly cfg: VehicleProcessConfig,
  ) {
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.log = cfg.log ?? (() => {});
    this.stepNs = Math.round(scenario.physics.timestep * 1e9);
    this.timestep = scenario.physics.timestep;
    const schedule = stepSchedule(scenario);
    this.period = schedule.controlPeriod(spec);
    this.scanPeriod = schedule.scanPeriod(spec);
    this.agent = new VehicleAgent(spec.name, createVehicleApps(spec, bodySizes(scenario), scenario.geoReference, cfg.grid), {
      now: () => this.now(),
      own: () => this.own,
      others: () => this.observed,
      scan: () => this.scan,
      publishDrive: (cmd) => client.publish(TOPICS.drive(spec.name), driveMsg(cmd, this.own?.stampNs ?? 0n, `${spec.name}/base_link`)),
      transmit: (msg) => void this.transmit(msg),
      log: (event, detail) =>
        this.report(TOPICS.events, { vehicle: spec.name, t_s: this.now(), event, ...(detail ? { detail } : {}) } satisfies EventReport),
    });
    this.wire();
  }

  finish(exitCode: 0 | 1, reason: string): void {
    if (this.ending) return;
    this.ending = true;
    const last = this.lastTickedStep >= 0 ? `, last in step ${this.lastTickedStep}` : '';
    this.log(`vehicle ${this.spec.name}: ${reason} (apps ticked ${this.ticks} times${last})`);
    void Promise.allSettled([this.endpoint.close(), this.client.close()]).then(() => this.resolveFinished({ exitCode, reason }));
  }

  /** A datagram that claimed another sender than the car it came from: dropped, and the simulator told. */
  onForged(f: ForgedArrival): void {
    this.report(TOPICS.events, {
      vehicle: this.spec.name,
      t_s: this.wallNow(),
      event: V2V_FORGED_EVENT,
      detail: { ...f },
    } satisfies EventReport);
  }

  onArrival(a: Arrival): void {
    const d = a.datagram;
    if (this.t0 === undefined || this.ending || d.from === this.spec.name) return;
    if (d.to !== '*' && d.to !== this.spec.name) return;
    const sentNs = BigInt(d.sentAtNs);
    // the receive-side gate: a "CAM" that is none never reaches the apps, and v2v.csv says malformed
    const malformed = standardMessageProblem(d.type, d.packet);
    // A standard message's GN packet goes to the apps as its bytes arrived, as in the simulated runtime.
    if (!malformed)
      this.agent.receive({
        id: d.id,
        from: d.from,
        to: d.to,
        type: d.type,
        sentAt: Number(sentNs - this.t0) / 1e9,
        body: d.body,
        ...(d.packet ? { packet: d.packet } : {}),
      });
    this.report(TOPICS.v2v, {
      kind: 'received',
      id: d.id,
      from: d.from,
      to: this.spec.name,
      type: d.type,
      sent_ns: d.sentAtNs,
      received_ns: a.receivedNs.toString(),
      size_bytes: a.size,
      ...(malformed ? { malformed } : {}),
    } satisfies V2VReport);
  }

  private wire(): void {
    const { client, spec } = this;
    client.advertise(TOPICS.drive(spec.name), MSG_TYPES.drive);
    for (const topic of [TOPICS.v2v, TOPICS.events, TOPICS.ready]) client.advertise(topic, MSG_TYPES.string);
    client.subscribe(TOPICS.simControl, MSG_TYPES.string, (msg) => {
      let control;
      try {
        control = parseSimControl(parseStringMsg(msg), TOPICS.simControl);
      } catch (err) {
        return this.log(`vehicle ${spec.name}: ignoring ${TOPICS.simControl}: ${(err as Error).message}`);
      }
      if (control.cmd === 'stop') return this.finish(0, `stopped by the simulator${control.reason ? `: ${control.reason}` : ''}`);
      this.t0 ??= BigInt(control.t0_epoch_ns);
    });
    client.subscribe(TOPICS.odom(spec.name), MSG_TYPES.odometry, (msg) => this.onOdometry(spec.name, msg));
    for (const other of spec.observes) client.subscribe(TOPICS.odom(other), MSG_TYPES.odometry, (msg) => this.onOdometry(other, msg));
    if (spec.lidar) client.subscribe(TOPICS.scan(spec.name), MSG_TYPES.laserScan, (msg) => this.onScan(msg));
    client.subscribe(TOPICS.collision(spec.name), MSG_TYPES.string, (msg) => this.onCollision(msg));
    client.onStatus((s) => this.log(`vehicle ${spec.name}: bridge ${s.level}: ${s.msg}`));
    client.publish(TOPICS.ready, stringMsg(JSON.stringify({ vehicle: spec.name })));
    void client.closed.then(() => this.finish(1, 'the connection to the simulator closed before it said stop'));
  }

  private onOdometry(car: string, msg: Record<string, unknown>): void {
    let odom: StampedOdometry;
    try {
      odom = parseOdometryMsg(msg);
    } catch (err) {
      return this.log(`vehicle ${this.spec.name}: bad odometry for ${car}: ${(err as Error).message}`);
    }
    // The step's time as the simulated runtime has it (steps x timestep), to the last bit: apps difference it.
    odom.t = Math.round(Number(odom.stampNs) / this.stepNs) * this.timestep;
    if (car === this.spec.name) {
      // A newer step is here before the observed cars (or the scan) caught up: tick the old one with what we have.
      if (this.own && this.own.stampNs < odom.stampNs) this.maybeTick(true);
      this.own = odom;
    } else {
      this.observed.set(car, odom);
    }
    this.maybeTick(false);
  }

  private onScan(msg: Record<string, unknown>): void {
    try {
      this.scan = parseLaserScanMsg(msg);
    } catch (err) {
      return this.log(`vehicle ${this.spec.name}: bad scan: ${(err as Error).message}`);
    }
    this.maybeTick(false);
  }

  private onCollision(msg: Record<string, unknown>): void {
    let notice;
    try {
      notice = parseCollisionReport(parseStringMsg(msg), TOPICS.collision(this.spec.name));
    } catch (err) {
      return this.log(`vehicle ${this.spec.name}: ignoring ${TOPICS.collision(this.spec.name)}: ${(err as Error).message}`);
    }
    if (this.collidedStep !== undefined) return;
    this.collidedStep = notice.step;
    this.log(
      `vehicle ${this.spec.name}: collided with ${notice.with.join(', ')} in step ${notice.step} (t=${notice.t_s.toFixed(2)} s); its apps are no longer ticked`,
    );
  }

  /**
   * Ticks once per due physics step, when the observed cars' odometry is of that step too and, with
   * a lidar, the scan the simulated runtime would hold then (the one of the last scan step) is here.
   */
  private maybeTick(evenIfLagging: boolean): void {
    const own = this.own;
    if (!own || this.t0 === undefined || this.ending || this.cfg.clock.nowNs() < this.t0) return;
    const step = Math.round(Number(own.stampNs) / this.stepNs);
    if (step <= this.lastTickedStep || step % this.period !== 0) return;
    if (this.collidedStep !== undefined && step >= this.collidedStep) return;
    if (!evenIfLagging && (this.observedLag(own.stampNs) || this.scanLag(step))) return;
    this.lastTickedStep = step;
    this.ticks++;
    // The apps decide on the step's time, as in the simulated runtime, not on when this tick ran.
    this.tickTime = step * this.timestep;
    try {
      this.agent.tick();
    } finally {
      this.tickTime = undefined;
    }
  }

  private observedLag(stampNs: bigint): boolean {
    return this.spec.observes.some((n) => (this.observed.get(n)?.stampNs ?? -1n) < stampNs);
  }

  private scanLag(step: number): boolean {
    if (this.scanPeriod === undefined) return false;
    const dueScanStep = step - (step % this.scanPeriod);
    return (this.scan?.stampNs ?? -1n) < BigInt(dueScanStep) * BigInt(this.stepNs);
  }

  private async transmit(msg: V2VMessage): Promise<void> {
    const targets = msg.to === '*' ? this.cfg.peers : this.cfg.peers.filter((p) => p.name === msg.to);
    if (!targets.length) {
      this.agent.log('v2v-no-route', { id: msg.id, to: msg.to });
      return;
    }
    try {
      const extra = { ...(msg.sizeBytes !== undefined ? { sizeBytes: msg.sizeBytes } : {}), ...(msg.packet ? { packet: msg.packet } : {}) };
      const sent = await Promise.all(
        targets.map((p) =>
          this.endpoint.sendStamped({ id: msg.id, to: msg.to, address: p.address, port: p.port, type: msg.type, body: msg.body, ...extra }),
        ),
      );
      // The packet (or the body) lets the simulator write the frame to v2v.pcap as the simulated runtime does.
      const frame = msg.packet ? { packet: Buffer.from(msg.packet).toString('base64') } : { body: msg.body };
      this.report(TOPICS.v2v, {
        kind: 'sent',
        id: msg.id,
        from: msg.from,
        to: msg.to,
        type: msg.type,
        size_bytes: sent[0].size,
        sent_ns: sent[0].sentAtNs.toString(),
        ...frame,
      } satisfies V2VReport);
    } catch (err) {
      this.agent.log('v2v-send-failed', { id: msg.id, error: (err as Error).message });
    }
  }

  private report(topic: string, data: Record<string, unknown>): void {
    this.client.publish(topic, stringMsg(JSON.stringify(data)));
  }

  /**
   * Run time [s] as the apps see it. In a tick: the physics step time of the odometry that
   * triggered it, as `world.time` in the simulated runtime, so a time-based decision (CAM
   * generation, DENM repetition, a scripted time) falls on the same step in both runtimes however
   * late the tick ran. Between ticks (a V2V arrival, which an app may react to at once): the wall
   * clock since t0, when it really happened.
   */
  private now(): number {
    return this.tickTime ?? this.wallNow();
  }

  /** Wall clock since the t0 in `start` [s], so logs line up with the simulator's. */
  private wallNow(): number {
    return this.t0 === undefined ? 0 : Number(this.cfg.clock.nowNs() - this.t0) / 1e9;
  }
}
