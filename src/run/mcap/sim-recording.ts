import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import { CSV_COLUMNS } from '../../measurement/csv-columns.js';
import type { CarSample, StepRecording } from '../../measurement/recorder.js';
import { SCAN_COLUMNS } from '../../measurement/scan-log.js';
import type { V2VRowFields } from '../../measurement/v2v-row.js';
import { cdrLayout } from './cdr-encoder.js';
import { type McapRecordingInput, type OpenRunMcap, openRunMcap } from './mcap-recording.js';
import { baseLink, MAP_FRAME, mapMessage, RunMessageBuilder, type TopicMessage } from './run-topics.js';

/** As CsvLog writes numbers, so a streamed recording holds exactly what one made from the CSVs would. */
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

const STAMP = { sec: 0, nanosec: 0 };
const QUATERNION = { x: 0, y: 0, z: 0, w: 1 };

/** Templates by type and frame names: built once a process (a sweep's runs share them). */
const templates = new Map<string, Template>();
function template(type: string, key: string, sample: () => unknown): Template {
  let t = templates.get(`${type}|${key}`);
  if (!t) templates.set(`${type}|${key}`, (t = new Template(type, sample())));
  return t;
}

/** A message whose layout never changes: its bytes once, and the offsets of the numbers a step sets. */
class Template {
  readonly bytes: Uint8Array;
  private readonly offsets: Map<string, number>;

  constructor(type: string, sample: unknown) {
    ({ bytes: this.bytes, offsets: this.offsets } = cdrLayout(type, sample));
  }

  at(path: string): number {
    const at = this.offsets.get(path);
    if (at === undefined) throw new Error(`no field ${path}`);
    return at;
  }
}

interface CarTemplates {
  odom: Template;
  drive: Template;
  o: { sec: number; nsec: number; x: number; y: number; qz: number; qw: number; v: number; yawRate: number };
  d: { sec: number; nsec: number; steer: number; speed: number };
}

/**
 * The simulated runtime's run.mcap, written as the run goes: each step's clock, TF, odometry and
 * drive commands are copied from templates with their numbers set in place (a microsecond a car),
 * the rarer rows (V2V, collisions, events, scans) go through the same builder as the CSV path.
 * The messages equal those `cavsim mcap` makes from the run's CSVs; a test holds them so.
 */
export class SimRunRecording implements StepRecording {
  private readonly mcap: OpenRunMcap;
  private readonly builder: RunMessageBuilder;
  private readonly clock: Template;
  private readonly clockAt: { sec: number; nsec: number };
  private readonly tf: Template;
  private readonly tfAt: { sec: number; nsec: number; x: number; y: number; qz: number; qw: number }[];
  private readonly cars: CarTemplates[];
  /** x, y, qz, qw of each car this step. */
  private readonly pose: Float64Array;
  private readonly ids: { clock: number; tf: number; odom: number[]; drive: number[] };
  /** /v2v/sent names every receiver of a frame, known only once each has its row: written at the end. */
  private readonly heldBack: TopicMessage[] = [];
  private closed = false;

  constructor(p: McapRecordingInput & { grid?: OccupancyGrid }) {
    this.mcap = openRunMcap(p);
    this.builder = new RunMessageBuilder(p.scenario, 0n);
    for (const [file, columns] of [
      ['collisions', CSV_COLUMNS.collisions],
      ['events', CSV_COLUMNS.events],
      ['scans', SCAN_COLUMNS],
    ] as const) {
      this.builder.messages(file, [[...columns]]);
    }
    if (p.grid) this.mcap.write(mapMessage(p.grid, 0n));
    const names = p.scenario.vehicles.map((v) => v.name);
    const header = (frame: string) => ({ stamp: STAMP, frame_id: frame });
    this.clock = template('rosgraph_msgs/msg/Clock', '', () => ({ clock: STAMP }));
    this.clockAt = { sec: this.clock.at('clock.sec'), nsec: this.clock.at('clock.nanosec') };
    this.tf = template('tf2_msgs/msg/TFMessage', names.join('\0'), () => ({
      transforms: names.map((n) => ({
        header: header(MAP_FRAME),
        child_frame_id: baseLink(n),
        transform: { translation: { x: 0, y: 0, z: 0 }, rotation: QUATERNION },
      })),
    }));
    this.tfAt = names.map((_, i) => {
      const f = `transforms[${i}]`;
      const at = (path: string) => this.tf.at(`${f}.${path}`);
      return {
        sec: at('header.stamp.sec'),
        nsec: at('header.stamp.nanosec'),
        x: at('transform.translation.x'),
        y: at('transform.translation.y'),
        qz: at('transform.rotation.z'),
        qw: at('transform.rotation.w'),
      };
    });
    this.cars = names.map((n) => {
      const odom = template('nav_msgs/msg/Odometry', n, () => ({
        header: header(MAP_FRAME),
        child_frame_id: baseLink(n),
        pose: { pose: { position: { x: 0, y: 0, z: 0 }, orientation: QUATERNION }, covariance: new Array(36).fill(0) },
        twist: { twist: { linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } }, covariance: new Array(36).fill(0) },
      }));
      const drive = template('ackermann_msgs/msg/AckermannDriveStamped', n, () => ({
        header: header(baseLink(n)),
        drive: { steering_angle: 0, steering_angle_velocity: 0, speed: 0, acceleration: 0, jerk: 0 },
      }));
      return {
        odom,
        drive,
        o: {
          sec: odom.at('header.stamp.sec'),
          nsec: odom.at('header.stamp.nanosec'),
          x: odom.at('pose.pose.position.x'),
          y: odom.at('pose.pose.position.y'),
          qz: odom.at('pose.pose.orientation.z'),
          qw: odom.at('pose.pose.orientation.w'),
          v: odom.at('twist.twist.linear.x'),
          yawRate: odom.at('twist.twist.angular.z'),
        },
        d: {
          sec: drive.at('header.stamp.sec'),
          nsec: drive.at('header.stamp.nanosec'),
          steer: drive.at('drive.steering_angle'),
          speed: drive.at('drive.speed'),
        },
      };
    });
    this.pose = new Float64Array(4 * names.length);
    const id = (topic: string) => this.mcap.channelIds.get(topic)!;
    this.ids = { clock: id('/clock'), tf: id('/tf'), odom: names.map((n) => id(`/${n}/odom`)), drive: names.map((n) => id(`/${n}/drive`)) };
  }

  step(t: number, cars: readonly CarSample[]): void {
    const timeNs = Math.round(round6(t) * 1e9);
    const sec = Math.floor(timeNs / 1e9);
    const nsec = timeNs - sec * 1e9;
    const w = this.mcap.writer;
    let at = this.put(this.ids.clock, timeNs, this.clock);
    let v = w.view;
    v.setInt32(at + this.clockAt.sec, sec, true);
    v.setUint32(at + this.clockAt.nsec, nsec, true);

    // the TF message is finished before the next begins: a new message may close the chunk
    const pose = this.pose;
    const tf = this.put(this.ids.tf, timeNs, this.tf);
    v = w.view;
    for (let i = 0; i < cars.length; i++) {
      const c = cars[i];
      const yaw = round6(c.yaw);
      const x = (pose[4 * i] = round6(c.x));
      const y = (pose[4 * i + 1] = round6(c.y));
      const qz = (pose[4 * i + 2] = Math.sin(yaw / 2));
      const qw = (pose[4 * i + 3] = Math.cos(yaw / 2));
      const f = this.tfAt[i];
      v.setInt32(tf + f.sec, sec, true);
      v.setUint32(tf + f.nsec, nsec, true);
      v.setFloat64(tf + f.x, x, true);
      v.setFloat64(tf + f.y, y, true);
      v.setFloat64(tf + f.qz, qz, true);
      v.setFloat64(tf + f.qw, qw, true);
    }
    for (let i = 0; i < cars.length; i++) {
      const c = cars[i];
      const car = this.cars[i];
      at = this.put(this.ids.odom[i], timeNs, car.odom);
      v = w.view;
      const o = car.o;
      v.setInt32(at + o.sec, sec, true);
      v.setUint32(at + o.nsec, nsec, true);
      v.setFloat64(at + o.x, pose[4 * i], true);
      v.setFloat64(at + o.y, pose[4 * i + 1], true);
      v.setFloat64(at + o.qz, pose[4 * i + 2], true);
      v.setFloat64(at + o.qw, pose[4 * i + 3], true);
      v.setFloat64(at + o.v, round6(c.v), true);
      v.setFloat64(at + o.yawRate, round6(c.yawRate), true);

      at = this.put(this.ids.drive[i], timeNs, car.drive);
      v = w.view;
      const d = car.d;
      v.setInt32(at + d.sec, sec, true);
      v.setUint32(at + d.nsec, nsec, true);
      v.setFloat32(at + d.steer, round6(c.cmdSteer), true);
      v.setFloat32(at + d.speed, round6(c.cmdSpeed), true);
    }
  }

  row(file: 'collisions' | 'events' | 'scans', cells: string[]): void {
    for (const m of this.builder.messages(file, [cells])) this.mcap.write(m);
  }

  v2vRow(row: V2VRowFields): void {
    const out = this.rowMessages;
    out.length = 0;
    this.builder.v2vMessages(row, out);
    for (const m of out) {
      if (m.topic === '/v2v/sent') this.heldBack.push(m);
      else this.mcap.write(m);
    }
  }

  /** A row's messages, in one list kept from row to row. */
  private readonly rowMessages: TopicMessage[] = [];

  /** Finishes run.mcap (also after a failed run: what was recorded stays readable). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const m of this.heldBack) this.mcap.write(m);
    this.mcap.writer.end();
  }

  /** Copies a template into the open chunk; returns where its data starts. */
  private put(channelId: number, timeNs: number, template: Template): number {
    const w = this.mcap.writer;
    const at = w.beginMessage(channelId, timeNs, template.bytes.length);
    w.chunk.set(template.bytes, at);
    return at;
  }
}
