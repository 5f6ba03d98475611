import type { DriveCommand } from '../physics/types.js';

/** A car's state as the infrastructure reports it (nav_msgs/Odometry reduced to the plane). */
export interface Odometry {
  t: number; // time of the observation [s]
  x: number;
  y: number;
  yaw: number;
  v: number;
  steer: number;
  yawRate: number;
}

/** sensor_msgs/LaserScan reduced to what the controllers need. */
export interface LaserScan {
  t: number;
  angleMin: number;
  angleIncrement: number;
  rangeMax: number;
  ranges: Float32Array;
}

/** A vehicle-to-vehicle datagram as apps see it. */
export interface V2VMessage {
  id: string; // unique per run: `${from}-${seq}`
  from: string;
  to: string; // a vehicle name, or '*' for broadcast
  sentAt: number; // sender clock [s]
  type: string;
  body: Record<string, unknown>;
  /** Payload bytes on the wire at least: a shorter encoding is padded to this. */
  sizeBytes?: number;
  /**
   * The GeoNetworking packet (GN + BTP + the facility message) this message is on the wire, for
   * standard V2X messages (a CAM): its length is the message's size.
   */
  packet?: Uint8Array;
  /** Why this is no standard message though it claims to be (message-gate.ts): every receiver drops it as `malformed`. */
  malformed?: string;
}

/** What a car knows of another through its beacons: the latest state it sent (`state.t` is its stamp). */
export interface Neighbour {
  state: Odometry;
  /** Longitudinal acceleration the sender reported [m/s^2]. */
  acceleration: number;
  /** When this car received that beacon [s]. */
  receivedAt: number;
}

/**
 * Everything a controller or V2V app may touch. The simulated runtime implements it in-process;
 * the vehicle container implements it over the control link and a UDP socket on eth1.
 */
export interface VehicleContext {
  readonly name: string;
  now(): number;
  own(): Odometry | undefined;
  /** Other cars' odometry, only for the cars this vehicle is configured to observe (ideal, from the infrastructure). */
  others(): ReadonlyMap<string, Odometry>;
  /** Other cars as this car heard of them over V2V: the latest beacon of each; its age is now() - state.t. */
  neighbours(): ReadonlyMap<string, Neighbour>;
  scan(): LaserScan | undefined;
  drive(cmd: DriveCommand): void;
  /**
   * Takes the longitudinal control from the controller: every drive command goes out with this
   * speed (steering kept) until it is called with undefined. An emergency brake still wins.
   */
  overrideSpeed(speed: number | undefined): void;
  /** Latches an emergency stop: from now on every drive command is replaced by speed 0. */
  emergencyBrake(reason: string): void;
  isBraking(): boolean;
  /** Sends a datagram; `sizeBytes` pads it to at least that many payload bytes; `packet` is its GN packet (V2VMessage). */
  send(to: string, type: string, body: Record<string, unknown>, opts?: { sizeBytes?: number; packet?: Uint8Array }): void;
  log(event: string, detail?: Record<string, unknown>): void;
  /**
   * With congestion control (an app's `dcc: reactive`): the least interval between two of the car's
   * packets that its DCC state allows now [s]; 0 or absent: no limit.
   */
  dccInterval?(): number;
}

/** A controller or V2V app. The runtime calls onTick at the vehicle's control rate. */
export interface VehicleApp {
  onTick?(ctx: VehicleContext): void;
  onMessage?(ctx: VehicleContext, msg: V2VMessage): void;
}
