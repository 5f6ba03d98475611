import { basename, dirname, join } from 'node:path';
import { readChannelLosses } from '../../../channel/ns3/channel-losses.js';
import type { V2VMessage } from '../../../core/control/vehicle-context.js';
import { loadMap } from '../../../core/map/load-map.js';
import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
import { centreDistance } from '../../../core/physics/ttc.js';
import { DEFAULT_GEO_REFERENCE } from '../../../core/v2x/networking/geo-reference.js';
import { ComputeLog } from '../../../measurement/compute-log.js';
import { CsvLog } from '../../../measurement/csv-log.js';
import { platoonLinks } from '../../../measurement/platoon.js';
import type { V2VTransmission } from '../../../measurement/recorder.js';
import { type CarSample, FLUSH_EVERY_STEP, Recorder } from '../../../measurement/recorder.js';
import { ScanLog } from '../../../measurement/scan-log.js';
import { V2VCapture } from '../../../measurement/v2v-capture.js';
import { decideVerdict } from '../../../run/outcome.js';
import { RUN_FILES, recorderFiles } from '../../../run/run-files.js';
import { RunFolder } from '../../../run/run-folder.js';
import { buildSummary, type RunSummary, unstartedSummary } from '../../../run/summary.js';
import { writeV2xFiles } from '../../../run/v2x-files.js';
import { type ResolvedScenario, type ResolvedVehicle, runsOwnCode } from '../../../scenario/resolved.js';
import { stepSchedule } from '../../../world/step-schedule.js';
import { type CollisionEvent, World } from '../../../world/world.js';
import { BridgeServer } from '../../rosbridge/bridge-server.js';
import { clientOf, clientPolicy } from '../../rosbridge/client-policy.js';
import {
  believedEventTime,
  CONTROL_PROTOCOL_VERSION,
  type CollisionReport,
  type EventReport,
  eventReportSchema,
  parseJsonData,
  parseSimControl,
  readyReportSchema,
  type SimulatorStatus,
  TOPICS,
  V2V_FORGED_EVENT,
  type V2VReport,
  v2vReportSchema,
} from '../../rosbridge/control-topics.js';
import { ProtocolError } from '../../rosbridge/protocol.js';
import {
  clockMsg,
  MSG_TYPES,
  odometryJson,
  optionalStampNs,
  parseDriveMsg,
  parseStringMsg,
  stringMsg,
} from '../../rosbridge/ros-messages.js';
import { BodyLink } from './body-link.js';
import type { CollectGarbage } from './idle-collector.js';
import { defaultMapFile, type HostPort, readResolvedScenario } from './process-env.js';
import { StepTiming } from './step-timing.js';
import type { WallClock } from './wall-clock.js';
import { rehearseBridge } from './warm-up/bridge-rehearsal.js';
import { optimizeAsUsual, optimizeEagerly } from './warm-up/optimizing-tier.js';
import { type ScanSource, scanSources, warmUpSimulator } from './warm-up/simulator-warm-up.js';

export interface SimulatorProcessConfig {
  runDir: string;
  runId: string;
  /** Default: `<runDir>/map/<basename of scenario.mapFile>`. */
  mapFile?: string;
  bind: HostPort;
  /** Client addresses and who they are (see bridge/client-policy.ts); without it any client may do anything. */
  clients?: Record<string, string>;
  clock: WallClock;
  /** After `stop`, reports still arriving on /cavsim/* are recorded for this long [ms]. */
  stopGraceMs?: number;
  /** While waiting for `start`, the initial odometry is republished this often [ms]. */
  idleOdometryPeriodMs?: number;
  /** Collects young garbage between steps (see idle-collector.ts); without it GC is left to V8. */
  collectGarbage?: CollectGarbage;
  log?: (line: string) => void;
}

export interface SimulatorOutcome {
  summary: RunSummary;
  exitCode: 0 | 1;
}

export interface RunningSimulator {
  readonly port: number;
  /** Resolves once summary.json is written and the bridge is closed. */
  readonly finished: Promise<SimulatorOutcome>;
  /** Ends the run early (SIGTERM, or `stop` on /sim_control): status `interrupted`. */
  interrupt(reason: string): void;
}

/** Loads the scenario and map, starts the rosbridge server and waits there for `start`. */
export async function startSimulatorProcess(cfg: SimulatorProcessConfig): Promise<RunningSimulator> {
  const scenario = readResolvedScenario(cfg.runDir);
  const grid = await loadMap(cfg.mapFile ?? defaultMapFile(cfg.runDir, scenario.mapFile));
  const observes = Object.fromEntries(scenario.vehicles.map((v) => [v.name, v.observes]));
  const bodies = new Set(scenario.vehicles.filter((v) => v.external?.role === 'body').map((v) => v.name));
  const policy = cfg.clients ? clientPolicy(cfg.clients, observes, bodies) : undefined;
  optimizeEagerly();
  // Only a warm-up: a simulator that cannot rehearse still runs, compiling in the run's first steps.
  const rehearsal = await rehearseBridge(scenario).then(
    (steps) => `rehearsed over ${steps} scratch steps`,
    (err: unknown) => `not rehearsed (${err instanceof Error ? err.message : String(err)})`,
  );
  cfg.log?.(`simulator: control link ${rehearsal}`);
  const bridge = await BridgeServer.listen({ host: cfg.bind.host, port: cfg.bind.port, log: cfg.log, policy });
  const session = new SimulatorSession(scenario, grid, bridge, cfg);
  optimizeAsUsual();
  return { port: bridge.port, finished: session.run(), interrupt: (reason) => session.interrupt(reason) };
}

/** summary.json of a simulator that could not even start: why, for the host to complete (run/summary.ts). */
export function writeStartupFailure(runDir: string, runId: string, reason: string): void {
  RunFolder.open(dirname(runDir), basename(runDir)).writeSummary(unstartedSummary(runId, reason));
}

/** A car cavsim drives with the idle controller: only its apps ever command it. */
const appsOnly = (v: ResolvedVehicle) => v.controller.type === 'idle' && !runsOwnCode(v);

/** More app events than this from one car in one run second is a flood (an app logs a few in a whole run). */
const EVENTS_PER_SECOND = 100;

/** Young-generation collections between steps: every few steps, only with time to spare. */
const GC_EVERY_STEPS = 5;
const GC_MIN_SLACK_NS = 4_000_000n;

const TIMING_COLUMNS = ['step', 't_s', 'lateness_ms', 'compute_ms'];

/**
 * One run of the simulator container: the thesis's gym bridge and physics in one process.
 * Waits for `start` on /sim_control, then steps the world on the absolute schedule t0 + k*dt,
 * publishing every car's odometry after each step and applying the latest /carN/drive. Cars with a
 * lidar get their scans on the steps the simulated runtime scans on; a car that collides is told
 * on /carN/collision before the odometry of that step.
 */
class SimulatorSession {
  private readonly world: World;
  private readonly scans: ScanSource[];
  private readonly collided = new Set<string>();
  private readonly recorder: Recorder;
  private readonly timing: StepTiming;
  private readonly timingCsv: CsvLog;
  /** Each stamped drive command's answer time: a car's control loop as it ran in real time. */
  private readonly computeLog: ComputeLog;
  private readonly scanLog?: ScanLog;
  /** v2v.pcap: every frame a vehicle reported sending, at its send stamp. */
  private readonly capture: V2VCapture;
  private readonly names: string[];
  private readonly braking = new Map<string, boolean>();
  private readonly ready = new Set<string>();
  /** Vehicles running their own code: ready only once their V2V relay is ready too. */
  private readonly relayed: Set<string>;
  private readonly relayReady = new Set<string>();
  private readonly abort = new AbortController();
  /** The physical cars (external role: body): mirrored from their reports, never stepped. */
  private readonly bodies: BodyLink;
  private samples: readonly CarSample[];
  private readonly stepNs: bigint;
  /** The stamp of the run's last odometry: the step after it never comes. */
  private readonly lastStepStampNs: bigint;
  private readonly log: (line: string) => void;
  private t0?: bigint;
  private recording = true;
  private interruptReason?: string;
  private failReason?: string;
  private startRequested?: (t0: bigint) => void;

  constructor(
    private readonly scenario: ResolvedScenario,
    grid: OccupancyGrid,
    private readonly bridge: BridgeServer,
    private readonly cfg: SimulatorProcessConfig,
  ) {
    warmUpSimulator(scenario, grid);
    this.world = new World(scenario, grid);
    this.scans = scanSources(this.world, grid);
    this.names = scenario.vehicles.map((v) => v.name);
    // A device's V2V is its own NIC's: it has no relay container to wait for.
    this.relayed = new Set(scenario.vehicles.filter((v) => runsOwnCode(v) && !v.external).map((v) => v.name));
    this.recorder = new Recorder(
      recorderFiles(cfg.runDir),
      this.names,
      FLUSH_EVERY_STEP,
      scenario.vehicles.map((v) => v.params),
      platoonLinks(scenario),
    );
    this.timing = new StepTiming(scenario.timing, scenario.physics.timestep);
    this.timingCsv = new CsvLog(join(cfg.runDir, RUN_FILES.timing), TIMING_COLUMNS);
    this.computeLog = new ComputeLog(join(cfg.runDir, RUN_FILES.compute), new Map(scenario.vehicles.map((v) => [v.name, 'real-time'])));
    if (scenario.record?.scans) this.scanLog = new ScanLog(join(cfg.runDir, RUN_FILES.scans));
    this.capture = new V2VCapture(join(cfg.runDir, RUN_FILES.pcap), scenario.geoReference ?? DEFAULT_GEO_REFERENCE);
    this.samples = this.world.cars.map((c) => ({ name: c.spec.name }) as CarSample);
    this.stepNs = BigInt(Math.round(scenario.physics.timestep * 1e9));
    this.lastStepStampNs = BigInt(stepSchedule(scenario).totalSteps) * this.stepNs;
    this.log = cfg.log ?? (() => {});
    this.bodies = new BodyLink(scenario, bridge, cfg.clock, () => {
      if (this.t0 === undefined) this.publishStatus('waiting');
    });
    this.watchExternalDevices();
  }

  /**
   * A car driven by a device cavsim does not run has nothing of cavsim's to watch but its
   * connection: once the run has started, the device going away fails the run, naming it.
   */
  private watchExternalDevices(): void {
    const clients = this.cfg.clients;
    const external = new Set(this.scenario.vehicles.filter((v) => v.external).map((v) => v.name));
    if (!clients || !external.size) return;
    this.bridge.onClient = (event, client, closeCode) => {
      const car = clientOf(clients, client.remote);
      if (event !== 'disconnected' || !car || !external.has(car) || this.t0 === undefined || !this.recording) return;
      this.fail(
        `${car}'s external device disconnected at t=${this.world.time.toFixed(2)} s (WebSocket close ${closeCode ?? 'without a code'})`,
      );
    };
  }

  /** Ends the run as failed with `reason` at the next step. */
  private fail(reason: string): void {
    if (this.failReason || this.interruptReason) return;
    this.failReason = reason;
    this.log(`simulator: ${reason}`);
    this.abort.abort();
  }

  interrupt(reason: string): void {
    if (this.interruptReason) return;
    this.interruptReason = reason;
    this.abort.abort();
    this.startRequested = undefined;
  }

  async run(): Promise<SimulatorOutcome> {
    const wallStart = this.cfg.clock.nowNs();
    let failure: unknown;
    let endNs = wallStart;
    try {
      this.wireTopics();
      this.bodies.wire();
      const t0 = await this.waitForStart();
      if (t0 !== undefined) await this.stepInRealTime(t0);
      endNs = this.cfg.clock.nowNs();
    } catch (err) {
      failure = err;
      endNs = this.cfg.clock.nowNs();
      this.log(`simulator: run failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const stopReason = failure instanceof Error ? failure.message : failure === undefined ? undefined : String(failure);
    // Said before the stop command, so the orchestrator expects the vehicles to exit from now on.
    this.publishStatus('stopping');
    this.bridge.publish(TOPICS.simControl, stringMsg(JSON.stringify({ cmd: 'stop', ...(stopReason ? { reason: stopReason } : {}) })));
    await new Promise((r) => setTimeout(r, this.cfg.stopGraceMs ?? 300));
    this.recording = false;
    this.bodies.close();
    // Each log is closed whatever the others do: on a full disk the first failure is the run's.
    for (const close of [
      () => this.recordChannelLosses(),
      () => this.recorder.closeTransmissions('not-received'),
      () => this.recorder.close(),
      () => this.timingCsv.close(),
      () => this.computeLog.close(),
      () => this.scanLog?.close(),
      () => this.capture.close(),
    ]) {
      try {
        close();
      } catch (err) {
        failure ??= err;
      }
    }

    try {
      writeV2xFiles(this.cfg.runDir, this.recorder, this.scenario, this.world.time);
    } catch (err) {
      failure ??= err;
    }
    const figures = this.t0 !== undefined ? this.timing.figures(this.t0, this.expectedCommands()) : undefined;
    const bodyFigures = this.t0 !== undefined && this.bodies.cars.size ? this.bodies.figures(endNs) : undefined;
    const { status, reason } = decideVerdict({
      failure,
      interrupted:
        this.interruptReason &&
        `${this.interruptReason} at t=${this.world.time.toFixed(2)} s before the scenario's ${this.scenario.duration} s`,
      invalid:
        [
          figures && this.timing.invalidReason(figures),
          ...(bodyFigures ? this.bodies.invalidReasons(bodyFigures) : []),
          this.forgedReason(),
          this.floodReason(),
        ]
          .filter(Boolean)
          .join('; ') || undefined,
    });
    const summary = buildSummary({
      runId: this.cfg.runId,
      runtime: 'docker',
      scenario: this.scenario,
      recorder: this.recorder,
      simTime: this.world.time,
      steps: this.world.steps,
      wallTime: Math.max(0, Number(endNs - (this.t0 ?? wallStart)) / 1e9),
      status,
      reason,
      ...(figures
        ? {
            timing: {
              ...figures,
              bridge_dropped_messages: this.bridge.dropped,
              compute: this.computeLog.summary(),
              ...(bodyFigures ? { external: bodyFigures } : {}),
            },
          }
        : {}),
    });
    try {
      RunFolder.open(dirname(this.cfg.runDir), basename(this.cfg.runDir)).writeSummary(summary);
    } catch (err) {
      // The host then builds the summary from the CSVs and the status below.
      this.log(`simulator: summary.json not written: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.publishStatus('stopped', { status, ...(reason ? { reason } : {}) });
    await this.bridge.close();
    return { summary, exitCode: status === 'failed' ? 1 : 0 };
  }

  /** Events per car and run second: the count in the current second, and how many were dropped. */
  private readonly eventRate = new Map<string, { second: number; n: number; dropped: number }>();

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

  /** A car that floods the event log is misbehaving: what it floods is dropped, and the run says so. */
  private floodReason(): string | undefined {
    const flooding = [...this.eventRate].filter(([, r]) => r.dropped > 0);
    if (!flooding.length) return undefined;
    return flooding.map(([car, r]) => `${car} published ${r.dropped} events beyond ${EVENTS_PER_SECOND} a second (dropped)`).join('; ');
  }

  /** Datagrams a receiver dropped because their body claimed another sender, by receiver, sender and claim. */
  private readonly forged = new Map<string, number>();

  private countForged(e: EventReport): void {
    const d = e.detail ?? {};
    const key = `${String(d.sender)} -> ${e.vehicle} claiming to be ${String(d.claimed)}`;
    this.forged.set(key, (this.forged.get(key) ?? 0) + 1);
  }

  /** A run in which a car sent V2V under another car's name measured something other than the channel. */
  private forgedReason(): string | undefined {
    if (!this.forged.size) return undefined;
    const each = [...this.forged].map(([what, n]) => `${n} from ${what}`).join(', ');
    return `forged V2V senders (dropped at the receiver): ${each}`;
  }

  /**
   * Each car's control ticks in the steps run so far: what a car that answers every tick sends. A
   * car stops ticking when it collides (as in the simulated runtime), so its ticks end there. A car
   * cavsim runs with the idle controller sends a command only when an app acts (a brake), so its
   * silence is not a stall and it is not counted.
   */
  private expectedCommands(): Record<string, number> {
    const schedule = stepSchedule(this.scenario);
    const collidedAt = new Map<string, number>();
    for (const c of this.recorder.collisions) {
      for (const name of [c.a, c.b]) if (!collidedAt.has(name)) collidedAt.set(name, Math.round(c.t / this.world.timestep));
    }
    return Object.fromEntries(
      this.world.cars
        .filter((car) => !car.mirrored && !appsOnly(car.spec))
        .map((car) => [
          car.spec.name,
          Math.floor(Math.min(this.world.steps, collidedAt.get(car.spec.name) ?? Infinity) / schedule.controlPeriod(car.spec)),
        ]),
    );
  }

  private wireTopics(): void {
    const b = this.bridge;
    for (const car of this.world.cars) {
      const name = car.spec.name;
      b.advertise(TOPICS.odom(name), MSG_TYPES.odometry, { latch: true });
      b.advertise(TOPICS.collision(name), MSG_TYPES.string, { latch: true });
      // Own code asks for V2V here and its relay answers with what arrived (either may come first).
      b.advertise(TOPICS.v2vSend(name), MSG_TYPES.string);
      b.advertise(TOPICS.v2vReceived(name), MSG_TYPES.string);
      if (car.spec.lidar) b.advertise(TOPICS.scan(name), MSG_TYPES.laserScan);
      b.subscribe(TOPICS.drive(name), MSG_TYPES.drive, (msg) => {
        if (car.mirrored) throw new ProtocolError(`${name} is a physical car (role: body): cavsim never drives it`);
        const command = parseDriveMsg(msg);
        const stampNs = optionalStampNs(msg);
        if (!this.recording) return;
        car.command = command;
        // A vehicle stamps its command with the odometry it answered: how long after that step's
        // scheduled publication the command arrived is the control loop's lag. An answer to the
        // last step's odometry has no step to be applied in: it is logged, but neither on time nor late.
        if (this.t0 !== undefined && stampNs !== undefined) {
          const lagMs = Number(this.cfg.clock.nowNs() - this.t0 - stampNs) / 1e6;
          if (stampNs < this.lastStepStampNs) this.timing.addControlLag(lagMs, name);
          const step = Number(stampNs / this.stepNs);
          this.computeLog.add(step, step * this.scenario.physics.timestep, name, { wallS: lagMs / 1000 }, lagMs / 1000);
        }
      });
    }
    b.advertise(TOPICS.simControl, MSG_TYPES.string, { latch: true });
    b.advertise(TOPICS.status, MSG_TYPES.string, { latch: true });
    b.advertise(TOPICS.clock, MSG_TYPES.clock);
    b.subscribe(TOPICS.simControl, MSG_TYPES.string, (msg) => {
      const control = parseSimControl(parseStringMsg(msg), TOPICS.simControl);
      if (control.cmd === 'stop')
        return this.interrupt(`stop requested on ${TOPICS.simControl}${control.reason ? ` (${control.reason})` : ''}`);
      if (!this.startRequested) throw new ProtocolError('the run has already started or ended');
      this.startRequested(BigInt(control.t0_epoch_ns));
    });
    b.subscribe(TOPICS.ready, MSG_TYPES.string, (msg) => {
      const { vehicle, part } = parseJsonData(readyReportSchema, parseStringMsg(msg), TOPICS.ready);
      if (!this.names.includes(vehicle)) throw new ProtocolError(`no vehicle named ${vehicle} in this scenario`);
      (part === 'v2v-relay' ? this.relayReady : this.ready).add(vehicle);
      if (this.t0 === undefined) this.publishStatus('waiting');
    });
    b.subscribe(TOPICS.v2v, MSG_TYPES.string, (msg) => this.recordV2V(parseStringMsg(msg)));
    b.subscribe(TOPICS.events, MSG_TYPES.string, (msg) => {
      const e = parseJsonData(eventReportSchema, parseStringMsg(msg), TOPICS.events);
      if (!this.recording || this.overEventLimit(e.vehicle)) return;
      if (e.event === 'emergency-brake') this.braking.set(e.vehicle, true);
      if (e.event === V2V_FORGED_EVENT) this.countForged(e);
      this.recorder.recordEvent(believedEventTime(e.t_s, this.world.time, this.world.timestep), e.vehicle, e.event, e.detail);
    });
  }

  private recordV2V(data: string): void {
    const r = parseJsonData(v2vReportSchema, data, TOPICS.v2v);
    if (!this.recording) return;
    if (this.t0 === undefined) throw new ProtocolError('V2V reports are recorded only after start');
    if (r.kind === 'sent') {
      const sentAt = this.sentAtOf(r, this.t0);
      this.recorder.recordSent(this.transmission(r, sentAt));
      return this.captureSent(r, sentAt);
    }
    const t0 = this.t0;
    // A physical car stamps what it sends and receives on its own clock: moved to ours by its measured offset.
    const sentNs = this.bodies.toSimulatorNs(r.from, BigInt(r.sent_ns));
    const receivedNs = this.bodies.toSimulatorNs(r.to, BigInt(r.received_ns));
    this.recorder.recordReceived({
      id: r.id,
      from: r.from,
      to: r.to,
      type: r.type,
      sentAt: Number(sentNs - t0) / 1e9,
      receivedAt: Number(receivedNs - t0) / 1e9,
      sizeBytes: r.size_bytes,
    });
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
    this.capture.sent(msg, this.world.odometry(sender), r.size_bytes);
  }

  /** Why frames did not arrive, as the built-in channel program wrote it (a user's program writes nothing). */
  private recordChannelLosses(): void {
    for (const loss of readChannelLosses(join(this.cfg.runDir, RUN_FILES.ns3Losses))) {
      const to = this.names[loss.node];
      const radio = {
        ...(loss.rxPowerDbm !== undefined ? { rxPowerDbm: loss.rxPowerDbm } : {}),
        ...(loss.lineOfSight !== undefined ? { lineOfSight: loss.lineOfSight } : {}),
      };
      if (to !== undefined) this.recorder.recordLossOf(loss.id, to, loss.reason, radio);
    }
  }

  /** The receivers a sent report meant (every other car for a broadcast), and how far each was (now). */
  private transmission(
    r: { id: string; from: string; to: string; type: string; size_bytes: number; packet?: string },
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
    };
  }

  /** Publishes the initial odometry until `start` arrives; undefined when interrupted first. */
  private waitForStart(): Promise<bigint | undefined> {
    this.publishStatus('waiting');
    const idleOdometry = () => {
      this.bodies.place(this.world, this.cfg.clock.nowNs());
      this.publishOdometry();
    };
    idleOdometry();
    const idle = setInterval(idleOdometry, this.cfg.idleOdometryPeriodMs ?? 100);
    return new Promise<bigint | undefined>((resolve) => {
      this.startRequested = (t0) => {
        this.startRequested = undefined;
        resolve(t0);
      };
      this.abort.signal.addEventListener('abort', () => resolve(undefined), { once: true });
    }).finally(() => clearInterval(idle));
  }

  private async stepInRealTime(t0: bigint): Promise<void> {
    const { clock } = this.cfg;
    this.t0 = t0;
    const { totalSteps, progressEvery } = stepSchedule(this.scenario);
    this.log(`simulator: start, t0=${t0}, ${totalSteps} steps of ${this.world.timestep} s`);
    this.bodies.start(t0);
    await clock.sleepUntil(t0, this.abort.signal);
    if (this.interruptReason) return;
    this.bodies.place(this.world, t0);
    this.publishScans();
    this.publishOdometry();
    this.record();
    this.publishStatus('running');
    for (let k = 1; k <= totalSteps; k++) {
      const scheduled = t0 + BigInt(k) * this.stepNs;
      await clock.sleepUntil(scheduled, this.abort.signal);
      if (this.failReason) throw new Error(this.failReason);
      if (this.interruptReason) return;
      const began = clock.nowNs();
      const stalled = this.bodies.stallReason(began, this.world.time);
      if (stalled) throw new Error(stalled);
      this.bodies.place(this.world, scheduled);
      const collisions = this.world.step();
      this.recorder.recordCollisions(collisions);
      if (collisions.length) this.publishCollisions(collisions);
      this.publishScans();
      this.publishOdometry();
      this.record();
      const latenessMs = Number(began - scheduled) / 1e6;
      const computeMs = Number(clock.nowNs() - began) / 1e6;
      this.timing.add(latenessMs, computeMs);
      this.timingCsv.add([k, this.world.time, latenessMs, computeMs]);
      if (k % progressEvery === 0) {
        this.timingCsv.flush();
        this.capture.flush();
        this.computeLog.flush();
        this.scanLog?.flush();
        this.publishStatus('running');
      }
      if (k % GC_EVERY_STEPS === 0 && scheduled + this.stepNs - clock.nowNs() > GC_MIN_SLACK_NS) this.cfg.collectGarbage?.();
    }
  }

  private publishOdometry(): void {
    const stampNs = BigInt(this.world.steps) * this.stepNs;
    this.bridge.publish(TOPICS.clock, clockMsg(stampNs));
    for (const car of this.world.cars)
      this.bridge.publishJson(TOPICS.odom(car.spec.name), () => odometryJson(car.spec.name, this.world.odometry(car), stampNs));
  }

  /** Scans due in this step, in the order the simulated runtime takes them (its noise sequence is the same). */
  private publishScans(): void {
    const step = this.world.steps;
    const stampNs = BigInt(step) * this.stepNs;
    for (const s of this.scans) {
      if (step % s.scanner.period !== 0) continue;
      const scan = s.scanner.scan();
      this.bridge.publishJson(s.topic, () => s.encoder.encode(scan, stampNs));
      this.scanLog?.add(s.scanner.name, scan);
    }
  }

  /** One latched notice per car, in the step it first collided; a frozen car hit again is not told twice. */
  private publishCollisions(events: readonly CollisionEvent[]): void {
    const notices = new Map<string, CollisionReport>();
    const step = this.world.steps;
    const add = (car: string, other: string, speed: number) => {
      if (this.collided.has(car)) return;
      const n = notices.get(car);
      if (n) n.with.push(other);
      else notices.set(car, { vehicle: car, step, t_s: this.world.time, with: [other], speed_mps: speed });
    };
    for (const e of events) {
      add(e.a, e.b, e.speedA);
      if (e.b !== 'wall') add(e.b, e.a, e.speedB);
    }
    for (const [car, notice] of notices) {
      this.collided.add(car);
      this.bridge.publish(TOPICS.collision(car), stringMsg(JSON.stringify(notice)));
      this.log(`simulator: ${car} collided with ${notice.with.join(', ')} at t=${notice.t_s.toFixed(2)} s (step ${step})`);
    }
  }

  private record(): void {
    this.samples = this.recorder.recordWorld(this.world, (name) => this.braking.get(name) ?? false);
  }

  private publishStatus(phase: SimulatorStatus['phase'], verdict: { status?: string; reason?: string } = {}): void {
    const minTtc = this.recorder.minTtc();
    const status: SimulatorStatus = {
      protocol: CONTROL_PROTOCOL_VERSION,
      phase,
      vehicles: this.names,
      ready: this.names.filter((n) => this.ready.has(n) && (!this.relayed.has(n) || this.relayReady.has(n)) && this.bodies.isReady(n)),
      t_s: this.world.time,
      duration_s: this.scenario.duration,
      cars: this.samples.map((s) => ({ name: s.name, v: s.v ?? 0, braking: s.braking ?? false, collided: s.collided ?? false })),
      min_ttc_s: minTtc,
      lateness: this.timing.snapshot(),
      ...verdict,
    };
    this.bridge.publish(TOPICS.status, stringMsg(JSON.stringify(status)));
  }
}
