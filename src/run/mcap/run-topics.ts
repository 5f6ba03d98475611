import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import { UserInputError } from '../../errors.js';
import { numberOr } from '../../measurement/csv-log.js';
import { type V2VRowFields, v2vRowFieldsFromText } from '../../measurement/v2v-row.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { RUN_FILES } from '../run-files.js';
import type { RosTypeName } from './ros-message-types.js';

/** One channel of a recording or of the live server. */
export interface RunTopic {
  topic: string;
  type: RosTypeName;
}

/** A message for a topic, at its log time. */
export interface TopicMessage {
  topic: string;
  timeNs: bigint;
  message: unknown;
}

/** The run-folder files a recording is made from, by the CSV they are read from. */
export type RecordedFile = 'vehicles' | 'scans' | 'v2v' | 'collisions' | 'events';
export const RECORDED_FILES: readonly RecordedFile[] = ['vehicles', 'scans', 'v2v', 'collisions', 'events'];

export const MAP_FRAME = 'map';
export const baseLink = (car: string) => `${car}/base_link`;

/** Every channel a run of this scenario has, whether or not a message arrives on it. */
export function runTopics(scenario: Pick<ResolvedScenario, 'vehicles' | 'record'>): RunTopic[] {
  const perCar = scenario.vehicles.flatMap((v): RunTopic[] => [
    { topic: `/${v.name}/odom`, type: 'nav_msgs/msg/Odometry' },
    { topic: `/${v.name}/drive`, type: 'ackermann_msgs/msg/AckermannDriveStamped' },
    ...(scenario.record?.scans && v.lidar ? [{ topic: `/${v.name}/scan`, type: 'sensor_msgs/msg/LaserScan' } as RunTopic] : []),
  ]);
  return [
    { topic: '/clock', type: 'rosgraph_msgs/msg/Clock' },
    { topic: '/tf', type: 'tf2_msgs/msg/TFMessage' },
    { topic: '/map', type: 'nav_msgs/msg/OccupancyGrid' },
    ...perCar,
    { topic: '/v2v/sent', type: 'cavsim_msgs/msg/V2VFrame' },
    { topic: '/v2v/received', type: 'cavsim_msgs/msg/V2VFrame' },
    { topic: '/v2v/lost', type: 'cavsim_msgs/msg/V2VFrame' },
    { topic: '/collisions', type: 'cavsim_msgs/msg/Collision' },
    { topic: '/events', type: 'cavsim_msgs/msg/RunEvent' },
  ];
}

const NS_PER_S = 1_000_000_000n;

/** Longer than any run (about 31 years): a time beyond it in a run's CSV is damage. */
const MAX_RUN_SECONDS = 1e9;

class BadRunTime extends Error {
  constructor(readonly value: string) {
    super(`${value} s is not a time of a run`);
  }
}

export function rosTime(timeNs: bigint): { sec: number; nanosec: number } {
  const ns = Number(timeNs);
  if (Number.isSafeInteger(ns) && ns >= 0) {
    // exact in doubles below 2^53 ns (104 days: every simulated run), and far faster than bigint division
    const sec = Math.floor(ns / 1e9);
    const nanosec = ns - sec * 1e9;
    return nanosec < 0
      ? { sec: sec - 1, nanosec: nanosec + 1e9 }
      : nanosec >= 1e9
        ? { sec: sec + 1, nanosec: nanosec - 1e9 }
        : { sec, nanosec };
  }
  return { sec: Number(timeNs / NS_PER_S), nanosec: Number(timeNs % NS_PER_S) };
}

const yawQuaternion = (yaw: number) => ({ x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) });
const ZERO_COVARIANCE = new Array<number>(36).fill(0);

const mapCells = new WeakMap<OccupancyGrid, Int8Array>();

/**
 * Occupancy flags (any non-zero byte is occupied) as 0/100, four cells at a time: each byte of a
 * 32-bit word is folded to 0 or 1 within itself, so the word times 100 has bytes of 0 or 100 and no
 * carries. A run records its map once, and a loop per cell cost more than the rest of the
 * recording of a short run.
 */
export function occupancyPercent(flags: Uint8Array): Int8Array {
  const out = new Uint8Array(flags.length);
  out.set(flags);
  const words = new Uint32Array(out.buffer, 0, out.length >>> 2);
  for (let i = 0; i < words.length; i++) {
    let w = words[i];
    w |= (w >>> 4) & 0x0f0f0f0f;
    w |= (w >>> 2) & 0x03030303;
    w |= (w >>> 1) & 0x01010101;
    words[i] = (w & 0x01010101) * 100;
  }
  for (let i = words.length << 2; i < out.length; i++) out[i] = out[i] ? 100 : 0;
  return new Int8Array(out.buffer);
}

/** The map as nav_msgs/OccupancyGrid: 100 occupied, 0 free; rows from the bottom, as the grid holds them. */
export function mapMessage(grid: OccupancyGrid, timeNs: bigint): TopicMessage {
  let data = mapCells.get(grid);
  if (!data) mapCells.set(grid, (data = occupancyPercent(grid.occupied)));
  const stamp = rosTime(timeNs);
  return {
    topic: '/map',
    timeNs,
    message: {
      header: { stamp, frame_id: MAP_FRAME },
      info: {
        map_load_time: stamp,
        resolution: grid.resolution,
        width: grid.width,
        height: grid.height,
        origin: { position: { x: grid.origin.x, y: grid.origin.y, z: 0 }, orientation: yawQuaternion(grid.origin.yaw) },
      },
      data,
    },
  };
}

/**
 * Turns a run's CSV rows into ROS 2 messages, a batch at a time (a whole file, or the lines a live
 * run has appended since the last batch). Each file's first row is its header; columns are found
 * by name. Times are the run's own (`t_s`) plus `timeBaseNs`: 0 for the simulated runtime's virtual
 * time, the wall clock at t = 0 for an emulated run.
 */
export class RunMessageBuilder {
  private readonly columns = new Map<RecordedFile, Map<string, number>>();
  private lastClockNs = -1n;
  private stepTf: { transforms: unknown[] } = { transforms: [] };
  private readonly rangeMax = new Map<string, number>();

  constructor(
    scenario: Pick<ResolvedScenario, 'vehicles'>,
    private readonly timeBaseNs = 0n,
  ) {
    for (const v of scenario.vehicles) if (v.lidar) this.rangeMax.set(v.name, v.lidar.rangeMax);
  }

  timeOf(seconds: string | number): bigint {
    const t = Number(seconds);
    if (!Number.isFinite(t) || Math.abs(t) > MAX_RUN_SECONDS) throw new BadRunTime(String(seconds));
    return this.timeBaseNs + BigInt(Math.round(t * 1e9));
  }

  /** Messages from rows of one file; rows that do not parse as numbers where numbers belong are skipped. */
  messages(file: RecordedFile, rows: readonly (readonly string[])[]): TopicMessage[] {
    let start = 0;
    if (!this.columns.has(file)) {
      if (!rows.length) return [];
      this.columns.set(file, new Map(rows[0].map((name, i) => [name, i])));
      start = 1;
    }
    const col = this.columns.get(file)!;
    const out: TopicMessage[] = [];
    const cell = (row: readonly string[], name: string) => row[col.get(name) ?? -1];
    for (let i = start; i < rows.length; i++) {
      const row = rows[i];
      const get = (name: string) => cell(row, name);
      try {
        if (file === 'vehicles') this.vehicle(get, out);
        else if (file === 'scans') this.scan(get, out);
        else if (file === 'v2v') this.v2v(get, out);
        else if (file === 'collisions') this.collision(get, out);
        else this.event(get, out);
      } catch (err) {
        if (!(err instanceof BadRunTime)) throw err;
        throw new UserInputError(
          `${RUN_FILES[file]}${start ? `, line ${i + 1}` : ''}: ${err.value} s is not a time of a run`,
          [],
          'cavsim writes no such time: the file was edited or damaged; restore it, or run the scenario again',
        );
      }
    }
    return out;
  }

  private vehicle(get: (c: string) => string | undefined, out: TopicMessage[]): void {
    const t = Number(get('t_s'));
    const x = Number(get('x_m'));
    const y = Number(get('y_m'));
    const yaw = Number(get('yaw_rad'));
    const car = get('vehicle');
    if (!car || ![t, x, y, yaw].every(Number.isFinite)) return;
    const timeNs = this.timeOf(t);
    const header = { stamp: rosTime(timeNs), frame_id: MAP_FRAME };
    const rotation = yawQuaternion(yaw);
    const transform = { header, child_frame_id: baseLink(car), transform: { translation: { x, y, z: 0 }, rotation } };
    if (timeNs > this.lastClockNs) {
      this.lastClockNs = timeNs;
      this.stepTf = { transforms: [] };
      out.push({ topic: '/clock', timeNs, message: { clock: header.stamp } });
      out.push({ topic: '/tf', timeNs, message: this.stepTf });
    }
    // one /tf message a step carries every car seen at that time in this batch
    this.stepTf.transforms.push(transform);
    out.push({
      topic: `/${car}/odom`,
      timeNs,
      message: {
        header,
        child_frame_id: baseLink(car),
        pose: { pose: { position: { x, y, z: 0 }, orientation: rotation }, covariance: ZERO_COVARIANCE },
        twist: {
          twist: {
            linear: { x: numberOr(get('speed_mps'), 0), y: 0, z: 0 },
            angular: { x: 0, y: 0, z: numberOr(get('yaw_rate_radps'), 0) },
          },
          covariance: ZERO_COVARIANCE,
        },
      },
    });
    out.push({
      topic: `/${car}/drive`,
      timeNs,
      message: {
        header: { stamp: header.stamp, frame_id: baseLink(car) },
        drive: {
          steering_angle: numberOr(get('cmd_steer_rad'), 0),
          steering_angle_velocity: 0,
          speed: numberOr(get('cmd_speed_mps'), 0),
          acceleration: 0,
          jerk: 0,
        },
      },
    });
  }

  private scan(get: (c: string) => string | undefined, out: TopicMessage[]): void {
    const car = get('vehicle');
    const t = Number(get('t_s'));
    const angleMin = Number(get('angle_min'));
    const increment = Number(get('angle_increment'));
    if (!car || ![t, angleMin, increment].every(Number.isFinite)) return;
    const ranges = Float32Array.from((get('ranges') ?? '').split(';').filter(Boolean), Number);
    const timeNs = this.timeOf(t);
    out.push({
      topic: `/${car}/scan`,
      timeNs,
      message: {
        header: { stamp: rosTime(timeNs), frame_id: baseLink(car) },
        angle_min: angleMin,
        angle_max: angleMin + increment * Math.max(0, ranges.length - 1),
        angle_increment: increment,
        time_increment: 0,
        scan_time: 0,
        range_min: 0,
        range_max: this.rangeMax.get(car) ?? Math.max(0, ...ranges),
        ranges,
        intensities: new Float32Array(0),
      },
    });
  }

  /** Every row a (frame, receiver); the first row of a frame also makes its /v2v/sent message. */
  private readonly framesSent = new Map<string, TopicMessage>();

  private v2v(get: (c: string) => string | undefined, out: TopicMessage[]): void {
    this.v2vMessages(v2vRowFieldsFromText(get), out);
  }

  /** A v2v.csv row's messages: its /v2v/received or /v2v/lost, and its frame's /v2v/sent at the first row. */
  v2vMessages(row: V2VRowFields, out: TopicMessage[]): void {
    const { id } = row;
    if (!id || !Number.isFinite(row.sentS)) return;
    const sentNs = this.timeOf(row.sentS);
    const delivered = row.outcome === 'delivered';
    const receivedNs = delivered ? this.timeOf(row.receivedS) : 0n;
    const frame = {
      // the receiver's frame: the (frame, receiver) row's own message, not copied (thousands a run)
      header: { stamp: rosTime(delivered ? receivedNs : sentNs), frame_id: baseLink(row.to) },
      id,
      sender: row.from,
      receiver: row.to,
      type: row.type,
      sent: rosTime(sentNs),
      received: delivered ? rosTime(receivedNs) : { sec: 0, nanosec: 0 },
      size_bytes: row.sizeBytes,
      outcome: row.outcome,
      distance_m: row.distanceM,
      line_of_sight: row.lineOfSight,
      rx_power_dbm: row.rxPowerDbm,
    };
    const sent = this.framesSent.get(id);
    if (sent) {
      const m = sent.message as { receiver: string };
      m.receiver += `,${frame.receiver}`;
    } else {
      const message: TopicMessage = {
        topic: '/v2v/sent',
        timeNs: sentNs,
        message: {
          ...frame,
          header: { stamp: frame.sent, frame_id: baseLink(frame.sender) },
          received: { sec: 0, nanosec: 0 },
          outcome: '',
        },
      };
      this.framesSent.set(id, message);
      out.push(message);
    }
    out.push({ topic: delivered ? '/v2v/received' : '/v2v/lost', timeNs: delivered ? receivedNs : sentNs, message: frame });
  }

  private collision(get: (c: string) => string | undefined, out: TopicMessage[]): void {
    const t = Number(get('t_s'));
    if (!Number.isFinite(t)) return;
    const timeNs = this.timeOf(t);
    out.push({
      topic: '/collisions',
      timeNs,
      message: {
        header: { stamp: rosTime(timeNs), frame_id: MAP_FRAME },
        a: get('a') ?? '',
        b: get('b') ?? '',
        speed_a_mps: numberOr(get('speed_a_mps'), NaN),
        speed_b_mps: numberOr(get('speed_b_mps'), NaN),
      },
    });
  }

  private event(get: (c: string) => string | undefined, out: TopicMessage[]): void {
    const t = Number(get('t_s'));
    if (!Number.isFinite(t)) return;
    const timeNs = this.timeOf(t);
    out.push({
      topic: '/events',
      timeNs,
      message: {
        header: { stamp: rosTime(timeNs), frame_id: MAP_FRAME },
        vehicle: get('vehicle') ?? '',
        event: get('event') ?? '',
        detail: get('detail') ?? '',
      },
    });
  }
}
