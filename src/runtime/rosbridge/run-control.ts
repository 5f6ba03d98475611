import type { Odometry } from '../../core/control/vehicle-context.js';
import { BridgeClient, type ConnectOptions } from './bridge-client.js';
import { type SimulatorStatus, TOPICS } from './control-topics.js';
import { MSG_TYPES, parseOdometryMsg, parseStringMsg, stringMsg } from './ros-messages.js';

/**
 * The orchestrator's end of the control link: follows /cavsim/status, and starts or stops the run
 * on /sim_control. `waitFor` resolves on the first status (latched, so possibly an earlier one)
 * that satisfies the predicate, or rejects if the link closes first.
 */
export class RunControl {
  private latest?: SimulatorStatus;
  private readonly listeners = new Set<(s: SimulatorStatus) => void>();

  private constructor(private readonly client: BridgeClient) {
    client.subscribe(TOPICS.status, MSG_TYPES.string, (msg) => {
      const status = JSON.parse(parseStringMsg(msg)) as SimulatorStatus;
      this.latest = status;
      for (const l of this.listeners) l(status);
    });
    client.advertise(TOPICS.simControl, MSG_TYPES.string);
  }

  static async connect(url: string, opts: ConnectOptions = {}): Promise<RunControl> {
    return new RunControl(await BridgeClient.connect(url, opts));
  }

  get status(): SimulatorStatus | undefined {
    return this.latest;
  }

  onOdometry(car: string, listener: (odometry: Odometry) => void): () => void {
    return this.client.subscribe(TOPICS.odom(car), MSG_TYPES.odometry, (msg) => listener(parseOdometryMsg(msg)));
  }

  onStatus(listener: (s: SimulatorStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  waitFor(predicate: (s: SimulatorStatus) => boolean): Promise<SimulatorStatus> {
    return new Promise((resolve, reject) => {
      if (this.latest && predicate(this.latest)) return resolve(this.latest);
      const off = this.onStatus((s) => {
        if (!predicate(s)) return;
        off();
        resolve(s);
      });
      void this.client.closed.then(() => {
        off();
        reject(new Error('the control link closed before the simulator reached the awaited state'));
      });
    });
  }

  /** Every vehicle of the scenario has subscribed and bound its V2V socket. */
  waitForReady(): Promise<SimulatorStatus> {
    return this.waitFor((s) => s.phase === 'waiting' && s.ready.length === s.vehicles.length);
  }

  waitForStopped(): Promise<SimulatorStatus> {
    return this.waitFor((s) => s.phase === 'stopped');
  }

  /** Physics step 1 happens at t0 + timestep; pick t0 100-300 ms ahead so every container has it. */
  start(t0EpochNs: bigint): void {
    this.client.publish(TOPICS.simControl, stringMsg(JSON.stringify({ cmd: 'start', t0_epoch_ns: t0EpochNs.toString() })));
  }

  stop(reason?: string): void {
    this.client.publish(TOPICS.simControl, stringMsg(JSON.stringify({ cmd: 'stop', ...(reason ? { reason } : {}) })));
  }

  /** Resolves when the link is gone, whoever closed it. */
  get closed(): Promise<unknown> {
    return this.client.closed;
  }

  close(answerMs?: number): Promise<void> {
    return this.client.close(answerMs);
  }
}
