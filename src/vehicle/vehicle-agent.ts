import type { DriveCommand } from '../physics/types.js';
import type { LaserScan, Odometry, V2VMessage, VehicleApp, VehicleContext } from '../control/vehicle-context.js';

/** What the agent needs from whichever runtime hosts it. */
export interface AgentHost {
  now(): number;
  own(): Odometry | undefined;
  others(): ReadonlyMap<string, Odometry>;
  scan(): LaserScan | undefined;
  publishDrive(cmd: DriveCommand): void;
  transmit(msg: V2VMessage): void;
  log(event: string, detail?: Record<string, unknown>): void;
}

/**
 * Runs a car's controller and V2V apps against a host. It owns the emergency-brake latch: once
 * any app calls emergencyBrake, every drive command goes out with speed 0 (steering kept).
 */
export class VehicleAgent implements VehicleContext {
  private braking = false;
  private seq = 0;
  private lastSteer = 0;

  constructor(
    readonly name: string,
    private readonly apps: readonly VehicleApp[],
    private readonly host: AgentHost,
  ) {}

  tick(): void {
    for (const app of this.apps) app.onTick?.(this);
    if (this.braking) this.host.publishDrive({ speed: 0, steer: this.lastSteer });
  }

  receive(msg: V2VMessage): void {
    for (const app of this.apps) app.onMessage?.(this, msg);
  }

  now = () => this.host.now();
  own = () => this.host.own();
  others = () => this.host.others();
  scan = () => this.host.scan();

  drive(cmd: DriveCommand): void {
    this.lastSteer = cmd.steer;
    if (!this.braking) this.host.publishDrive(cmd);
  }

  emergencyBrake(reason: string): void {
    if (this.braking) return;
    this.braking = true;
    this.host.log('emergency-brake', { reason });
    this.host.publishDrive({ speed: 0, steer: this.lastSteer });
  }

  isBraking(): boolean {
    return this.braking;
  }

  send(to: string, type: string, body: Record<string, unknown>, opts: { sizeBytes?: number } = {}): void {
    const padding = opts.sizeBytes !== undefined ? { sizeBytes: opts.sizeBytes } : {};
    this.host.transmit({ id: `${this.name}-${++this.seq}`, from: this.name, to, sentAt: this.host.now(), type, body, ...padding });
  }

  log(event: string, detail?: Record<string, unknown>): void {
    this.host.log(event, detail);
  }
}
