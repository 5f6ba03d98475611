import { CavsimError } from '../../errors.js';
import { CONTROL_PORT } from '../../ports.js';
import type { RunEvents } from '../../run/events.js';
import type { CleanupScope } from '../../run/run-session.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import type { SimulatorStatus } from '../rosbridge/control-topics.js';
import type { ComponentWatch, Death } from './component-watch.js';
import { startDeviceRelay } from './device-relay.js';
import type { ControlLink, EmulatedRunDeps } from './emulated-deps.js';
import type { EmulatedRunPlan } from './plan-emulated.js';
import { relayPositions } from './position-relay.js';
import type { WatchedSimulator } from './run-containers.js';

/** How long the simulator gets to write its summary after the host asked it to stop. */
const SIMULATOR_STOP_WAIT_MS = 10_000;
/** How often the Docker engine is asked whether it is there while the run goes. */
const ENGINE_CHECK_MS = 1000;
/** The control link closing is blamed on the link only if no container death explains it by then. */
const CONTROL_LINK_GRACE_MS = 1000;

export interface ControlOptions {
  events?: RunEvents;
  shouldStop?: () => boolean;
  stopReason: () => string;
}

/**
 * The host's side of the run while it runs: the control link to the simulator, the relays that let
 * external devices and ns-3's position feed reach it, and the timers that ask the engine whether it
 * is there and the simulator to stop when the user does. Each is released on `scope` (released
 * before the run is summarised): timers, relays, then the link.
 */
export class ControlSession {
  private link?: ControlLink;
  private simulator?: WatchedSimulator;
  /** The run's t = 0 on the wall clock [ns since the epoch], once started (when the simulator says it). */
  timeBaseNs?: bigint;

  constructor(
    private readonly scope: CleanupScope,
    private readonly deps: EmulatedRunDeps,
    private readonly plan: EmulatedRunPlan,
    private readonly watch: ComponentWatch,
    private readonly opts: ControlOptions,
  ) {}

  private emit(phase: string, detail?: string): void {
    this.opts.events?.emit({ type: 'phase', phase, detail });
  }

  /** Connects to the simulator, relays positions (`positionsPort`, ns-3's feed) and devices, and waits until every vehicle is ready. */
  async connect(simulator: WatchedSimulator, positionsPort: number | undefined): Promise<void> {
    const { plan, watch } = this;
    this.simulator = simulator;
    this.emit('connecting', `simulator at ${plan.simulator.controlUrl}`);
    const link = await watch.guard(this.deps.connectControl(plan.simulator.controlUrl, 30_000));
    this.link = link;
    this.scope.defer('the control link', () => link.close().catch(() => {}));
    link.onStatus((s) => {
      if (s.phase === 'stopping' || s.phase === 'stopped') watch.runEnding();
    });
    watch.watch(
      'control link',
      link.closed.then((): Death => ({ exit_status: null, signal: null, last_log_lines: [] })),
      { graceMs: CONTROL_LINK_GRACE_MS },
    );
    if (positionsPort !== undefined) {
      const stopRelay = relayPositions(
        link,
        plan.hostNet.vehicles.map((v) => v.name),
        positionsPort,
      );
      this.scope.defer('the position relay', stopRelay);
    }
    const devicesReady: Promise<void>[] = [];
    for (const device of plan.externals) {
      const relay = await startDeviceRelay(device, { host: plan.simulator.ip, port: CONTROL_PORT }, (line) =>
        this.opts.events?.emit({ type: 'log', level: 'info', message: line }),
      );
      this.scope.defer(`${device.vehicle}'s device relay`, () => relay.close());
      this.emit(
        'devices',
        `waiting up to ${device.connectTimeout} s for ${device.vehicle}'s device (${device.from}) at ${relay.url}${device.v2vIp ? `; its V2V address is ${device.v2vIp}/24` : ''}`,
      );
      devicesReady.push(
        link.waitForVehicles([device.vehicle], device.connectTimeout * 1000).catch(() => {
          throw new CavsimError(
            'RUN_FAILED',
            `${device.vehicle}'s external device (${device.from}) did not connect to ${relay.url} and say ready within ${device.connectTimeout} s`,
            `start the device's program with --url ${relay.url} --vehicle ${device.vehicle}; check that it reaches ${device.listen.host} (docs/external-devices.md)`,
          );
        }),
      );
    }
    await watch.guard(
      Promise.all([
        link.waitForVehicles(
          plan.vehicles.map((v) => v.vehicle),
          30_000,
        ),
        ...devicesReady,
      ]),
    );
  }

  /** Sends `start`; progress is reported from then on. */
  async start(scenario: ResolvedScenario): Promise<void> {
    const link = this.link!;
    link.onStatus(progressReporter(scenario, this.opts.events));
    this.timeBaseNs = (await link.start()) ?? undefined;
  }

  /**
   * Waits for the run's end: the simulator's exit, its `stopped` status (with --keep it stays up),
   * or a component's death (thrown). Asked to stop (Ctrl-C, a signal), the simulator has
   * SIMULATOR_STOP_WAIT_MS to end the run.
   */
  async runToEnd(): Promise<void> {
    const { deps, watch, opts } = this;
    const link = this.link!;
    const simulator = this.simulator!;
    const engineCheck = setInterval(
      () => void deps.docker.ping().catch((err: unknown) => watch.engineLost(err instanceof Error ? err.message : String(err))),
      ENGINE_CHECK_MS,
    );
    this.scope.defer('the engine check', () => clearInterval(engineCheck));
    let stopTimer: NodeJS.Timeout | undefined;
    let stopDeadline: NodeJS.Timeout | undefined;
    const unanswered = new Promise<never>((_, reject) => {
      stopTimer = setInterval(() => {
        if (!opts.shouldStop?.()) return;
        clearInterval(stopTimer);
        void link.stop(opts.stopReason()).catch(() => {});
        stopDeadline = setTimeout(
          () =>
            reject(
              new Error(`the simulator did not stop within ${SIMULATOR_STOP_WAIT_MS / 1000} s of being asked to (${opts.stopReason()})`),
            ),
          SIMULATOR_STOP_WAIT_MS,
        );
      }, 100);
    });
    try {
      const stopped = new Promise<void>((r) => link.onStatus((s) => s.phase === 'stopped' && r()));
      await watch.guard(Promise.race([simulator.ended, stopped, unanswered]));
    } finally {
      clearInterval(stopTimer);
      clearTimeout(stopDeadline);
    }
  }

  /** Whatever ended the run early, the simulator (if alive and connected) writes what it measured. */
  async stopSimulator(err: unknown): Promise<void> {
    const { link, simulator } = this;
    if (!link || !simulator) return;
    await link.stop(err instanceof Error ? err.message : String(err)).catch(() => {});
    await Promise.race([simulator.gone, new Promise((r) => setTimeout(r, SIMULATOR_STOP_WAIT_MS))]);
  }
}

function progressReporter(scenario: ResolvedScenario, events: RunEvents | undefined) {
  return (status: SimulatorStatus) => {
    if (status.phase !== 'running') return;
    events?.emit({
      type: 'progress',
      t: status.t_s,
      duration: scenario.duration,
      cars: status.cars,
      minTtc: status.min_ttc_s,
      ...(status.lateness ? { lateness: status.lateness } : {}),
    });
  };
}
