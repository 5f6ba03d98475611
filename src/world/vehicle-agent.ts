import type { LaserScan, Neighbour, Odometry, V2VMessage, VehicleApp, VehicleContext } from '../core/control/vehicle-context.js';
import type { DriveCommand } from '../core/physics/types.js';
import { NeighbourTable } from '../core/v2x/apps/neighbour-table.js';
import { DEFAULT_GEO_REFERENCE, type GeoReference } from '../core/v2x/networking/geo-reference.js';

/** What the agent needs from whichever runtime hosts it. */
export interface AgentHost {
  now(): number;
  own(): Odometry | undefined;
  others(): ReadonlyMap<string, Odometry>;
  scan(): LaserScan | undefined;
  publishDrive(cmd: DriveCommand): void;
  transmit(msg: V2VMessage): void;
  log(event: string, detail?: Record<string, unknown>): void;
  /** The least interval between the car's DCC-gated packets now [s] (runtimes with congestion control). */
  dccInterval?(): number;
}

/**
 * Runs a car's controller and V2V apps against a host. It owns what goes out as the drive command:
 * the controller's, with the speed an app took over (overrideSpeed), or 0 once any app called
 * emergencyBrake (a latch; steering kept). During a tick the command goes out once, at its end.
 * It keeps the car's neighbour table, fed by the beacons and CAMs it receives.
 */
export class VehicleAgent implements VehicleContext {
  private braking = false;
  private seq = 0;
  private lastCommand: DriveCommand | undefined;
  private speedOverride: number | undefined;
  private inTick = false;
  private publishAtTickEnd = false;
  private readonly table: NeighbourTable;

  /** `geoReference`: where the map's origin is on Earth, to place received CAMs on the map. */
  constructor(
    readonly name: string,
    private readonly apps: readonly VehicleApp[],
    private readonly host: AgentHost,
    geoReference: GeoReference = DEFAULT_GEO_REFERENCE,
  ) {
    this.table = new NeighbourTable(geoReference);
  }

  tick(): void {
    this.inTick = true;
    this.publishAtTickEnd = this.braking;
    try {
      for (const app of this.apps) app.onTick?.(this);
    } finally {
      this.inTick = false;
    }
    if (this.publishAtTickEnd) this.publish();
  }

  receive(msg: V2VMessage): void {
    this.table.update(msg, this.host.now());
    for (const app of this.apps) app.onMessage?.(this, msg);
  }

  now = () => this.host.now();
  own = () => this.host.own();
  others = () => this.host.others();
  scan = () => this.host.scan();
  neighbours = (): ReadonlyMap<string, Neighbour> => this.table.view();
  dccInterval = () => this.host.dccInterval?.() ?? 0;

  drive(cmd: DriveCommand): void {
    this.lastCommand = cmd;
    this.requestPublish();
  }

  overrideSpeed(speed: number | undefined): void {
    if (speed === this.speedOverride) return;
    this.speedOverride = speed;
    this.requestPublish();
  }

  emergencyBrake(reason: string): void {
    if (this.braking) return;
    this.braking = true;
    this.host.log('emergency-brake', { reason });
    this.publish();
  }

  private requestPublish(): void {
    if (this.inTick) this.publishAtTickEnd = true;
    else this.publish();
  }

  private publish(): void {
    const speed = this.braking ? 0 : (this.speedOverride ?? this.lastCommand?.speed);
    if (speed === undefined) return;
    this.host.publishDrive({ speed, steer: this.lastCommand?.steer ?? 0 });
  }

  isBraking(): boolean {
    return this.braking;
  }

  send(to: string, type: string, body: Record<string, unknown>, opts: { sizeBytes?: number; packet?: Uint8Array } = {}): void {
    const msg: V2VMessage = { id: `${this.name}-${++this.seq}`, from: this.name, to, sentAt: this.host.now(), type, body };
    if (opts.sizeBytes !== undefined) msg.sizeBytes = opts.sizeBytes;
    if (opts.packet) msg.packet = opts.packet;
    this.host.transmit(msg);
  }

  log(event: string, detail?: Record<string, unknown>): void {
    this.host.log(event, detail);
  }
}
