import { describe, expect, it } from 'vitest';
import type { LaserScan } from '../../../../src/core/control/vehicle-context.js';
import { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { Lidar } from '../../../../src/core/sensing/lidar.js';
import { LaserScanEncoder, parseLaserScanMsg } from '../../../../src/runtime/rosbridge/laser-scan-msg.js';
import { encodePublishFrame, encodeServerOp, ProtocolError } from '../../../../src/runtime/rosbridge/protocol.js';

const ROS2_LASER_SCAN_FIELDS = [
  'header',
  'angle_min',
  'angle_max',
  'angle_increment',
  'time_increment',
  'scan_time',
  'range_min',
  'range_max',
  'ranges',
  'intensities',
];

function scanOf(ranges: number[]): LaserScan {
  return { t: 0, angleMin: -2.35, angleIncrement: 4.7 / (ranges.length - 1), rangeMax: 30, ranges: Float32Array.from(ranges) };
}

describe('sensor_msgs/LaserScan', () => {
  const encoder = new LaserScanEncoder({ frameId: 'car0/base_link', scanTime: 0.01 });

  it('has exactly the ROS 2 fields, stamped in simulation time, in the car frame', () => {
    const msg = JSON.parse(encoder.encode(scanOf([1, 2, 3, 4, 5]), 1_230_000_000n)) as Record<string, unknown>;
    expect(Object.keys(msg)).toEqual(ROS2_LASER_SCAN_FIELDS);
    expect(msg).toMatchObject({
      header: { stamp: { sec: 1, nanosec: 230_000_000 }, frame_id: 'car0/base_link' },
      angle_min: -2.35,
      angle_increment: 4.7 / 4,
      time_increment: 0,
      scan_time: 0.01,
      range_min: 0,
      range_max: 30,
      ranges: [1, 2, 3, 4, 5],
      intensities: [],
    });
    expect(msg.angle_max).toBeCloseTo(2.35, 12);
  });

  it('round-trips a real lidar scan exactly, beam for beam', () => {
    // A 20 m x 20 m room of 0.05 m cells with a wall all round, scanned with the f1tenth defaults (noise on).
    const size = 400;
    const cells = new Uint8Array(size * size);
    for (let i = 0; i < size; i++) cells[i] = cells[(size - 1) * size + i] = cells[i * size] = cells[i * size + size - 1] = 1;
    const grid = new OccupancyGrid({ width: size, height: size, resolution: 0.05, origin: { x: -10, y: -10, yaw: 0 }, occupied: cells });
    const lidar = new Lidar(grid, { seed: 7 });
    const ranges = lidar.scan({ x: 1.3, y: -2.1, yaw: 0.4 });
    const scan: LaserScan = { t: 0.5, angleMin: lidar.angleMin, angleIncrement: lidar.angleIncrement, rangeMax: lidar.rangeMax, ranges };
    const back = parseLaserScanMsg(JSON.parse(encoder.encode(scan, 500_000_000n)));
    expect(back.ranges).toEqual(ranges);
    expect(back).toMatchObject({
      t: 0.5,
      stampNs: 500_000_000n,
      angleMin: lidar.angleMin,
      angleIncrement: lidar.angleIncrement,
      rangeMax: 30,
    });
  });

  it('reads null ranges (JSON for inf) as +Infinity', () => {
    const msg = JSON.parse(encoder.encode(scanOf([1, Infinity, 2]), 0n));
    expect(msg.ranges).toEqual([1, null, 2]);
    expect([...parseLaserScanMsg(msg).ranges]).toEqual([1, Infinity, 2]);
  });

  it.each([
    ['no header', (m: Record<string, unknown>) => delete m.header, 'header.stamp'],
    ['ranges not an array', (m: Record<string, unknown>) => (m.ranges = '1,2'), 'ranges'],
    ['a string range', (m: Record<string, unknown>) => (m.ranges = [1, '2']), 'ranges[1]'],
    ['no angle_increment', (m: Record<string, unknown>) => delete m.angle_increment, 'angle_increment'],
  ])('rejects a message with %s', (_what, spoil, error) => {
    const msg = JSON.parse(encoder.encode(scanOf([1, 2]), 0n)) as Record<string, unknown>;
    spoil(msg);
    expect(() => parseLaserScanMsg(msg)).toThrow(ProtocolError);
    expect(() => parseLaserScanMsg(msg)).toThrow(error);
  });

  it('a pre-encoded message makes the publish op that encoding the object would', () => {
    const json = encoder.encode(scanOf([1.5, 2.5]), 10_000_000n);
    const msg = JSON.parse(json) as Record<string, unknown>;
    expect(JSON.parse(encodePublishFrame('/car0/scan', json))).toEqual(
      JSON.parse(encodeServerOp({ op: 'publish', topic: '/car0/scan', msg })),
    );
    expect(encodePublishFrame('/car0/scan', '{}')).toBe(encodeServerOp({ op: 'publish', topic: '/car0/scan', msg: {} }));
  });
});
