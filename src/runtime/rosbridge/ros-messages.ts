import type { Odometry } from '../../core/control/vehicle-context.js';
import type { DriveCommand } from '../../core/physics/types.js';
import { type JsonObject, ProtocolError } from './protocol.js';

/** ROS 2 message type names, as they appear in advertise/subscribe ops. */
export const MSG_TYPES = {
  drive: 'ackermann_msgs/msg/AckermannDriveStamped',
  odometry: 'nav_msgs/msg/Odometry',
  laserScan: 'sensor_msgs/msg/LaserScan',
  string: 'std_msgs/msg/String',
  clock: 'rosgraph_msgs/msg/Clock',
} as const;

export type RosTime = {
  sec: number;
  nanosec: number;
};

export type Header = {
  stamp: RosTime;
  frame_id: string;
};

type Vector3 = {
  x: number;
  y: number;
  z: number;
};

export type OdometryMsg = {
  header: Header;
  child_frame_id: string;
  pose: { pose: { position: Vector3; orientation: Vector3 & { w: number } }; covariance: number[] };
  twist: { twist: { linear: Vector3; angular: Vector3 }; covariance: number[] };
};

export type AckermannDriveStampedMsg = {
  header: Header;
  drive: { steering_angle: number; steering_angle_velocity: number; speed: number; acceleration: number; jerk: number };
};

export type StringMsg = {
  data: string;
};

export const MAP_FRAME = 'map';

const NS_PER_S = 1_000_000_000n;

export function rosTime(ns: bigint): RosTime {
  return { sec: Number(ns / NS_PER_S), nanosec: Number(ns % NS_PER_S) };
}

export function rosTimeNs(t: RosTime): bigint {
  return BigInt(t.sec) * NS_PER_S + BigInt(t.nanosec);
}

const zeros36 = () => new Array<number>(36).fill(0);

/**
 * A car's state as nav_msgs/Odometry in the map frame. The stamp is simulation time (as ROS's
 * use_sim_time would give). The model is planar, so roll rate is always zero: cavsim carries the
 * front-wheel steering angle [rad] in `twist.twist.angular.x` instead (docs/control-protocol.md).
 */
export function odometryMsg(car: string, odom: Odometry, stampNs: bigint): OdometryMsg {
  return {
    header: { stamp: rosTime(stampNs), frame_id: MAP_FRAME },
    child_frame_id: `${car}/base_link`,
    pose: {
      pose: { position: { x: odom.x, y: odom.y, z: 0 }, orientation: { x: 0, y: 0, z: Math.sin(odom.yaw / 2), w: Math.cos(odom.yaw / 2) } },
      covariance: zeros36(),
    },
    twist: { twist: { linear: { x: odom.v, y: 0, z: 0 }, angular: { x: odom.steer, y: 0, z: odom.yawRate } }, covariance: zeros36() },
  };
}

const ZEROS36_JSON = JSON.stringify(zeros36());

/** A number as JSON.stringify writes it (non-finite as null). */
const jsonNumber = (v: number) => (Number.isFinite(v) ? String(v) : 'null');

/**
 * JSON.stringify(odometryMsg(car, odom, stampNs)), the same text, written from a template: the
 * simulator sends one per car every physics step.
 */
export function odometryJson(car: string, odom: Odometry, stampNs: bigint): string {
  const { sec, nanosec } = rosTime(stampNs);
  return (
    `{"header":{"stamp":{"sec":${sec},"nanosec":${nanosec}},"frame_id":"${MAP_FRAME}"},"child_frame_id":${JSON.stringify(`${car}/base_link`)},` +
    `"pose":{"pose":{"position":{"x":${jsonNumber(odom.x)},"y":${jsonNumber(odom.y)},"z":0},` +
    `"orientation":{"x":0,"y":0,"z":${jsonNumber(Math.sin(odom.yaw / 2))},"w":${jsonNumber(Math.cos(odom.yaw / 2))}}},"covariance":${ZEROS36_JSON}},` +
    `"twist":{"twist":{"linear":{"x":${jsonNumber(odom.v)},"y":0,"z":0},"angular":{"x":${jsonNumber(odom.steer)},"y":0,"z":${jsonNumber(odom.yawRate)}}},"covariance":${ZEROS36_JSON}}}`
  );
}

/** Reads an Odometry message back into the controllers' view; `t` is the stamp in seconds. */
export function parseOdometryMsg(msg: JsonObject): Odometry & { stampNs: bigint } {
  const stampNs = parseStamp(msg, 'odometry');
  const position = at(msg, ['pose', 'pose', 'position'], 'odometry');
  const orientation = at(msg, ['pose', 'pose', 'orientation'], 'odometry');
  const linear = at(msg, ['twist', 'twist', 'linear'], 'odometry');
  const angular = at(msg, ['twist', 'twist', 'angular'], 'odometry');
  const z = num(orientation, 'z', 'odometry pose.pose.orientation');
  const w = num(orientation, 'w', 'odometry pose.pose.orientation');
  return {
    stampNs,
    t: Number(stampNs) / 1e9,
    x: num(position, 'x', 'odometry pose.pose.position'),
    y: num(position, 'y', 'odometry pose.pose.position'),
    yaw: 2 * Math.atan2(z, w),
    v: num(linear, 'x', 'odometry twist.twist.linear'),
    steer: optionalNum(angular, 'x', 0),
    yawRate: optionalNum(angular, 'z', 0),
  };
}

export function driveMsg(cmd: DriveCommand, stampNs: bigint, frameId: string): AckermannDriveStampedMsg {
  return {
    header: { stamp: rosTime(stampNs), frame_id: frameId },
    drive: { steering_angle: cmd.steer, steering_angle_velocity: 0, speed: cmd.speed, acceleration: 0, jerk: 0 },
  };
}

/** Only `drive.speed` and `drive.steering_angle` act on the car, as in the f1tenth gym bridge. */
export function parseDriveMsg(msg: JsonObject): DriveCommand {
  const drive = msg.drive;
  if (typeof drive !== 'object' || drive === null) throw new ProtocolError('AckermannDriveStamped: missing "drive"');
  const d = drive as JsonObject;
  return { speed: num(d, 'speed', 'drive'), steer: optionalNum(d, 'steering_angle', 0) };
}

/** The header stamp of a stamped message, or undefined when it has none (a stamp is optional on input). */
export function optionalStampNs(msg: JsonObject): bigint | undefined {
  const header = msg.header as JsonObject | undefined;
  if (typeof header !== 'object' || header === null || typeof header.stamp !== 'object' || header.stamp === null) return undefined;
  return parseStamp(msg, 'header');
}

/**
 * A drive command's stamp, the same rule in both runtimes: none (no header or no stamp), else a time
 * no later than the newest tick sent. A stamp that is no time (a string, null, fractions) or from
 * the future is refused with an error to the sender and answers no tick.
 */
export function driveStampNs(msg: JsonObject, newestNs: bigint | undefined): bigint | undefined {
  const header = msg.header;
  if (header === undefined) return undefined;
  if (typeof header !== 'object' || header === null) throw new ProtocolError('header must be an object with a stamp');
  if (!('stamp' in header)) return undefined;
  const stamp = parseStamp(msg, 'header');
  if (newestNs === undefined || stamp > newestNs)
    throw new ProtocolError(
      `header.stamp ${stamp} ns is ahead of the newest tick sent (${newestNs ?? 'none yet'} ns): a command answers a tick it has seen`,
    );
  return stamp;
}

/** rosgraph_msgs/msg/Clock: simulation time, as ROS's use_sim_time reads it from /clock. */
export function clockMsg(ns: bigint): { clock: RosTime } {
  return { clock: rosTime(ns) };
}

export function stringMsg(data: string): StringMsg {
  return { data };
}

export function parseStringMsg(msg: JsonObject): string {
  if (typeof msg.data !== 'string') throw new ProtocolError('std_msgs/String: "data" must be a string');
  return msg.data;
}

/** The header stamp of a stamped message [ns]; `what` names the message in the error. */
export function parseStamp(msg: JsonObject, what: string): bigint {
  const stamp = at(msg, ['header', 'stamp'], what);
  const sec = stamp.sec;
  const nanosec = stamp.nanosec ?? stamp.nsec;
  if (!Number.isInteger(sec) || !Number.isInteger(nanosec) || (nanosec as number) < 0 || (nanosec as number) >= 1e9) {
    throw new ProtocolError(`${what}: header.stamp needs integer sec and nanosec`);
  }
  return BigInt(sec as number) * NS_PER_S + BigInt(nanosec as number);
}

function at(msg: JsonObject, path: string[], what: string): JsonObject {
  let cur: unknown = msg;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) break;
    cur = (cur as JsonObject)[key];
  }
  if (typeof cur !== 'object' || cur === null) throw new ProtocolError(`${what}: missing ${path.join('.')}`);
  return cur as JsonObject;
}

function num(o: JsonObject, key: string, where: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ProtocolError(`${where}.${key} must be a finite number`);
  return v;
}

function optionalNum(o: JsonObject, key: string, fallback: number): number {
  const v = o[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ProtocolError(`${key} must be a finite number`);
  return v;
}
