import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
import type { CarSample } from '../../../measurement/recorder.js';
import { writeV2xFiles } from '../../../run/v2x-files.js';
import { type ResolvedScenario, runsOwnCode } from '../../../scenario/resolved.js';
import { stepSchedule } from '../../../world/step-schedule.js';
import { World } from '../../../world/world.js';
import type { BridgeServer } from '../../rosbridge/bridge-server.js';
import { clientOf } from '../../rosbridge/client-policy.js';
import { CONTROL_PROTOCOL_VERSION, type SimulatorStatus, TOPICS } from '../../rosbridge/control-topics.js';
import { stringMsg } from '../../rosbridge/ros-messages.js';
import { BodyLink } from './body-link.js';
import type { SimulatorOutcome, SimulatorProcessConfig } from './simulator-config.js';
import { SimulatorLogs } from './simulator-logs.js';
import { SimulatorPublisher } from './simulator-publisher.js';
import { SimulatorReports } from './simulator-reports.js';
import { summarizeSimulatorRun } from './simulator-summary.js';
import { wireSimulatorTopics } from './simulator-topics.js';
import { StepTiming } from './step-timing.js';
import { scanSources, warmUpSimulator } from './warm-up/simulator-warm-up.js';

/** Young-generation collections between steps: every few steps, only with time to spare. */
const GC_EVERY_STEPS = 5;
const GC_MIN_SLACK_NS = 4_000_000n;

/**
 * One run of the simulator container: the thesis's gym bridge and physics in one process.
 * Waits for `start` on /sim_control, then steps the world on the absolute schedule t0 + k*dt,
 * publishing every car's odometry after each step and applying the latest /carN/drive. Cars with a
 * lidar get their scans on the steps the simulated runtime scans on; a car that collides is told
 * on /carN/collision before the odometry of that step. The topics it serves are wired in
 * simulator-topics.ts, what the cars report is kept by simulator-reports.ts, the files it writes
 * are simulator-logs.ts, and the verdict and summary.json are simulator-summary.ts.
 */
export class SimulatorSession {
  readonly world: World;
  readonly logs: SimulatorLogs;
  readonly reports: SimulatorReports;
  readonly timing: StepTiming;
  readonly names: string[];
  readonly ready = new Set<string>();
  readonly relayReady = new Set<string>();
  /** Vehicles running their own code: ready only once their V2V relay is ready too. */
  private readonly relayed: Set<string>;
  private readonly abort = new AbortController();
  /** The physical cars (external role: body): mirrored from their reports, never stepped. */
  readonly bodies: BodyLink;
  private readonly publish: SimulatorPublisher;
  private samples: readonly CarSample[];
  readonly stepNs: bigint;
  /** The stamp of the run's last odometry: the step after it never comes. */
  readonly lastStepStampNs: bigint;
  private readonly log: (line: string) => void;
  t0?: bigint;
  recording = true;
  private interruptReason?: string;
  private failReason?: string;
  startRequested?: (t0: bigint) => void;

  constructor(
    readonly scenario: ResolvedScenario,
    grid: OccupancyGrid,
    private readonly bridge: BridgeServer,
    readonly cfg: SimulatorProcessConfig,
  ) {
    warmUpSimulator(scenario, grid);
    this.world = new World(scenario, grid);
    this.names = scenario.vehicles.map((v) => v.name);
    // A device's V2V is its own NIC's: it has no relay container to wait for.
    this.relayed = new Set(scenario.vehicles.filter((v) => runsOwnCode(v) && !v.external).map((v) => v.name));
    this.logs = new SimulatorLogs(scenario, cfg.runDir);
    this.timing = new StepTiming(scenario.timing, scenario.physics.timestep);
    this.samples = this.world.cars.map((c) => ({ name: c.spec.name }) as CarSample);
    this.stepNs = BigInt(Math.round(scenario.physics.timestep * 1e9));
    this.lastStepStampNs = BigInt(stepSchedule(scenario).totalSteps) * this.stepNs;
    this.log = cfg.log ?? (() => {});
    this.bodies = new BodyLink(scenario, bridge, cfg.clock, () => {
      if (this.t0 === undefined) this.publishStatus('waiting');
    });
    this.reports = new SimulatorReports(this.world, this.logs, this.bodies, this.names, cfg.runDir);
    this.publish = new SimulatorPublisher(this.world, bridge, scanSources(this.world, grid), this.stepNs, this.logs.scanLog, this.log);
    this.watchExternalDevices();
  }

  /**
   * A car driven by a device cavsim does not run has nothing of cavsim's to watch but its
   * connection: once the run has started, the device going away fails the run, naming it.
   */
  /** Also: what the link refuses a car is counted under it (reports.recordLinkRefusal). */
  private watchExternalDevices(): void {
    const clients = this.cfg.clients;
    const cars = new Set(this.names);
    // what the link refused a car's code or device is counted under the car (summary.json refusals)
    if (clients)
      this.bridge.onRefused = (r) => {
        const car = clientOf(clients, r.remote);
        if (car && cars.has(car)) this.reports.recordLinkRefusal(car, r);
      };
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
    const wallStartNs = this.cfg.clock.nowNs();
    let failure: unknown;
    let endNs = wallStartNs;
    try {
      wireSimulatorTopics(this, this.bridge);
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
    const closing = this.logs.close(() => this.reports.recordChannelLosses());
    failure ??= closing;
    try {
      writeV2xFiles(this.cfg.runDir, this.logs.recorder, this.scenario, this.world.time);
    } catch (err) {
      failure ??= err;
    }
    const { summary, status, reason } = summarizeSimulatorRun({
      scenario: this.scenario,
      runId: this.cfg.runId,
      runDir: this.cfg.runDir,
      world: this.world,
      logs: this.logs,
      timing: this.timing,
      bodies: this.bodies,
      reports: this.reports,
      bridgeDropped: this.bridge.dropped,
      t0: this.t0,
      wallStartNs,
      endNs,
      failure,
      interruptReason: this.interruptReason,
      log: this.log,
    });
    this.publishStatus('stopped', { status, ...(reason ? { reason } : {}) });
    await this.bridge.close();
    return { summary, exitCode: status === 'failed' ? 1 : 0 };
  }

  /** Publishes the initial odometry until `start` arrives; undefined when interrupted first. */
  private waitForStart(): Promise<bigint | undefined> {
    this.publishStatus('waiting');
    const idleOdometry = () => {
      this.bodies.place(this.world, this.cfg.clock.nowNs());
      this.publish.odometry();
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
    this.publish.scansDue();
    this.publish.odometry();
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
      this.logs.recorder.recordCollisions(collisions);
      if (collisions.length) this.publish.collisions(collisions);
      this.publish.scansDue();
      this.publish.odometry();
      this.record();
      const latenessMs = Number(began - scheduled) / 1e6;
      const computeMs = Number(clock.nowNs() - began) / 1e6;
      this.timing.add(latenessMs, computeMs);
      this.logs.timingCsv.add([k, this.world.time, latenessMs, computeMs]);
      if (k % progressEvery === 0) {
        this.logs.flush();
        this.publishStatus('running');
      }
      if (k % GC_EVERY_STEPS === 0 && scheduled + this.stepNs - clock.nowNs() > GC_MIN_SLACK_NS) this.cfg.collectGarbage?.();
    }
  }

  private record(): void {
    this.samples = this.logs.recorder.recordWorld(this.world, (name) => this.reports.isBraking(name));
  }

  publishStatus(phase: SimulatorStatus['phase'], verdict: { status?: string; reason?: string } = {}): void {
    const minTtc = this.logs.recorder.minTtc();
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
