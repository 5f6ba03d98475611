import { parse } from '@foxglove/rosmsg';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import { describe, expect, it } from 'vitest';
import { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { compileCdrEncoder } from '../../../../src/run/mcap/cdr-encoder.js';
import { type RosTypeName, schemaText } from '../../../../src/run/mcap/ros-message-types.js';
import { mapMessage, occupancyPercent, RunMessageBuilder, runTopics } from '../../../../src/run/mcap/run-topics.js';

const stamp = { sec: 3, nanosec: 250_000_000 };
const header = { stamp, frame_id: 'map' };
const SAMPLES: Record<RosTypeName, unknown> = {
  'rosgraph_msgs/msg/Clock': { clock: stamp },
  'tf2_msgs/msg/TFMessage': {
    transforms: [
      {
        header,
        child_frame_id: 'car0/base_link',
        transform: { translation: { x: 1.5, y: -2, z: 0 }, rotation: { x: 0, y: 0, z: 0.5, w: 0.866 } },
      },
    ],
  },
  'nav_msgs/msg/Odometry': {
    header,
    child_frame_id: 'car0/base_link',
    pose: {
      pose: { position: { x: 1, y: 2, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      covariance: new Array(36).fill(0).map((_, i) => i),
    },
    twist: { twist: { linear: { x: 10, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.1 } }, covariance: new Array(36).fill(0.5) },
  },
  'nav_msgs/msg/OccupancyGrid': {
    header,
    info: {
      map_load_time: stamp,
      resolution: 0.05,
      width: 3,
      height: 2,
      origin: { position: { x: -1, y: -2, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    },
    data: Int8Array.from([0, 100, 0, 100, 0, 0]),
  },
  'sensor_msgs/msg/LaserScan': {
    header,
    angle_min: -2.35,
    angle_max: 2.35,
    angle_increment: 0.5,
    time_increment: 0,
    scan_time: 0,
    range_min: 0,
    range_max: 30,
    ranges: Float32Array.from([1, 2.5, 30]),
    intensities: new Float32Array(0),
  },
  'ackermann_msgs/msg/AckermannDriveStamped': {
    header,
    drive: { steering_angle: 0.1, steering_angle_velocity: 0, speed: 7.5, acceleration: 0, jerk: 0 },
  },
  'cavsim_msgs/msg/V2VFrame': {
    header,
    id: 'car0-1',
    sender: 'car0',
    receiver: 'car1',
    type: 'emergency-brake',
    sent: stamp,
    received: { sec: 3, nanosec: 260_000_000 },
    size_bytes: 130,
    outcome: 'delivered',
    distance_m: 14,
    line_of_sight: -1,
    rx_power_dbm: NaN,
  },
  'cavsim_msgs/msg/Collision': { header, a: 'car0', b: 'car1', speed_a_mps: 3, speed_b_mps: 2 },
  'cavsim_msgs/msg/RunEvent': { header, vehicle: 'car0', event: 'brake-sent', detail: '{"ttc_s":0.7}' },
};

describe('CDR encoding of the recorded message types', () => {
  it.each(Object.keys(SAMPLES) as RosTypeName[])('%s: the schema parses as ROS 2 and the bytes equal the reference writer', (type) => {
    const definitions = parse(schemaText(type), { ros2: true });
    const reference = new MessageWriter(definitions).writeMessage(SAMPLES[type]);
    const ours = compileCdrEncoder(type)(SAMPLES[type]);
    expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(reference).toString('hex'));
    const decoded = new MessageReader(definitions).readMessage(ours);
    expect(Buffer.from(compileCdrEncoder(type)(decoded)).equals(Buffer.from(ours))).toBe(true);
  });

  it('leaves no byte of a longer earlier message in the padding of a later one', () => {
    const encode = compileCdrEncoder('cavsim_msgs/msg/V2VFrame');
    const long = { ...(SAMPLES['cavsim_msgs/msg/V2VFrame'] as object), outcome: 'below-sensitivity', rx_power_dbm: -90 };
    encode(long);
    const again = encode(SAMPLES['cavsim_msgs/msg/V2VFrame']);
    const reference = new MessageWriter(parse(schemaText('cavsim_msgs/msg/V2VFrame'), { ros2: true })).writeMessage(
      SAMPLES['cavsim_msgs/msg/V2VFrame'],
    );
    expect(Buffer.from(again).equals(Buffer.from(reference))).toBe(true);
  });
});

describe('CDR encoding of large messages', () => {
  it('a 100,000-beam scan (more than the first buffer holds, from a plain array as a CSV row gives) equals the reference writer', () => {
    const type = 'sensor_msgs/msg/LaserScan';
    const ranges = Array.from({ length: 100_000 }, (_, i) => 1 + (i % 300) / 10);
    const scan = { ...(SAMPLES[type] as object), ranges, intensities: [] };
    const reference = new MessageWriter(parse(schemaText(type), { ros2: true })).writeMessage(scan);
    const ours = compileCdrEncoder(type)(scan);
    expect(ours.length).toBeGreaterThan(400_000);
    expect(Buffer.from(ours).equals(Buffer.from(reference))).toBe(true);
  });
});

describe('run rows as ROS 2 messages', () => {
  const scenario = {
    vehicles: [{ name: 'car0', lidar: { rangeMax: 30 } }, { name: 'car1' }],
    record: { scans: true, mcap: true },
  } as never;

  it('gives each car odometry and a drive command per row, and the clock and one transform message (every car) per step', () => {
    const b = new RunMessageBuilder(scenario, 0n);
    const rows = [
      [
        't_s',
        'vehicle',
        'x_m',
        'y_m',
        'yaw_rad',
        'speed_mps',
        'steer_rad',
        'yaw_rate_radps',
        'cmd_speed_mps',
        'cmd_steer_rad',
        'braking',
        'collided',
      ],
      ['0.01', 'car0', '1', '2', String(Math.PI / 2), '3', '0', '0.2', '4', '0.1', '0', '0'],
      ['0.01', 'car1', '5', '6', '0', '1', '0', '0', '1', '0', '0', '0'],
    ];
    const messages = b.messages('vehicles', rows);
    expect(messages.map((m) => m.topic)).toEqual(['/clock', '/tf', '/car0/odom', '/car0/drive', '/car1/odom', '/car1/drive']);
    expect((messages[1].message as { transforms: { child_frame_id: string }[] }).transforms.map((t) => t.child_frame_id)).toEqual([
      'car0/base_link',
      'car1/base_link',
    ]);
    expect(messages.every((m) => m.timeNs === 10_000_000n)).toBe(true);
    const odom = messages[2].message as {
      pose: { pose: { orientation: { z: number; w: number } } };
      twist: { twist: { linear: { x: number } } };
    };
    expect(odom.pose.pose.orientation.z).toBeCloseTo(Math.SQRT1_2, 12);
    expect(odom.twist.twist.linear.x).toBe(3);
  });

  it('sends a broadcast once, naming every receiver, and gives each receiver a received or lost message', () => {
    const b = new RunMessageBuilder(scenario, 1_000_000_000n);
    const messages = b.messages('v2v', [
      [
        'id',
        'from',
        'to',
        'type',
        'sent_s',
        'received_s',
        'latency_ms',
        'size_bytes',
        'outcome',
        'distance_m',
        'line_of_sight',
        'rx_power_dbm',
      ],
      ['b-1', 'car0', 'car1', 'beacon', '1', '1.002', '2', '300', 'delivered', '5', 'true', '-60'],
      ['b-1', 'car0', 'car2', 'beacon', '1', '', '', '300', 'below-sensitivity', '400', 'false', '-95'],
    ]);
    expect(messages.map((m) => [m.topic, m.timeNs])).toEqual([
      ['/v2v/sent', 2_000_000_000n],
      ['/v2v/received', 2_002_000_000n],
      ['/v2v/lost', 2_000_000_000n],
    ]);
    expect(messages[0].message).toMatchObject({ receiver: 'car1,car2' });
    expect(messages[2].message).toMatchObject({ outcome: 'below-sensitivity', line_of_sight: 0, rx_power_dbm: -95 });
  });

  it('writes the map as occupancy 100 or 0, rows from the bottom as the grid keeps them', () => {
    const grid = new OccupancyGrid({
      width: 2,
      height: 2,
      resolution: 0.5,
      origin: { x: -1, y: -1, yaw: 0 },
      occupied: Uint8Array.from([1, 0, 0, 1]),
    });
    const m = mapMessage(grid, 0n).message as { data: Int8Array; info: { width: number } };
    expect([...m.data]).toEqual([100, 0, 0, 100]);
    expect(m.info.width).toBe(2);
  });

  it('turns any grid of flags into 0/100 as a cell-by-cell loop does (every byte value, every length mod 4)', () => {
    for (let length = 0; length < 600; length += 37) {
      const flags = Uint8Array.from({ length: length + (length % 4) }, (_, i) => ((i * 97 + length) % 256 < 128 ? 0 : (i * 31) % 256));
      flags[0] = 255;
      expect([...occupancyPercent(flags)]).toEqual([...flags].map((f) => (f ? 100 : 0)));
    }
    const everyByte = Uint8Array.from({ length: 259 }, (_, i) => i % 256);
    expect([...occupancyPercent(everyByte)]).toEqual([...everyByte].map((f) => (f ? 100 : 0)));
  });

  it('has a scan topic only for cars with a lidar when scans are recorded', () => {
    expect(runTopics(scenario).map((t) => t.topic)).toContain('/car0/scan');
    expect(runTopics(scenario).map((t) => t.topic)).not.toContain('/car1/scan');
    expect(runTopics({ ...(scenario as object), record: { scans: false } } as never).map((t) => t.topic)).not.toContain('/car0/scan');
  });
});
