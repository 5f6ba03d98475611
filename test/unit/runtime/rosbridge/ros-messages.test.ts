import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../../src/runtime/rosbridge/protocol.js';
import {
  driveMsg,
  odometryJson,
  odometryMsg,
  optionalStampNs,
  parseDriveMsg,
  parseOdometryMsg,
  parseStringMsg,
  rosTime,
  rosTimeNs,
} from '../../../../src/runtime/rosbridge/ros-messages.js';

describe('ROS time', () => {
  it.each([0n, 10_000_000n, 999_999_999n, 1_000_000_000n, 4_990_000_000n, 1_795_335_745_058_842_000n])('round-trips %s ns', (ns) => {
    const t = rosTime(ns);
    expect(t.nanosec).toBeLessThan(1e9);
    expect(rosTimeNs(t)).toBe(ns);
  });
});

describe('nav_msgs/Odometry', () => {
  const odom = { t: 1.23, x: -20.5, y: -1, yaw: 0, v: 9.87, steer: -0.12, yawRate: 0.05 };

  it.each([0, 1, -1, 3.1, -3.1, Math.PI - 1e-9])('round-trips yaw %s through the quaternion', (yaw) => {
    const back = parseOdometryMsg(JSON.parse(JSON.stringify(odometryMsg('car0', { ...odom, yaw }, 1_230_000_000n))));
    expect(back.yaw).toBeCloseTo(yaw, 12);
    expect(back).toMatchObject({ x: -20.5, y: -1, v: 9.87, steer: -0.12, yawRate: 0.05, t: 1.23, stampNs: 1_230_000_000n });
  });

  it('is written from its template as the same text JSON.stringify gives the message', () => {
    const values = [0, -0, 1e-7, -3.25, 123456.789, 1e21, 5e-324, Number.NaN, Number.POSITIVE_INFINITY];
    for (const [k, v] of values.entries()) {
      const state = {
        t: 0,
        x: v,
        y: -v,
        yaw: v,
        v: values[(k + 1) % values.length],
        steer: values[(k + 2) % values.length],
        yawRate: values[(k + 3) % values.length],
      };
      for (const stamp of [0n, 4_990_000_000n, 1_795_335_745_058_842_000n]) {
        expect(odometryJson('car"7\\', state, stamp)).toBe(JSON.stringify(odometryMsg('car"7\\', state, stamp)));
      }
    }
  });

  it('has the ROS 2 shape: map frame, base_link child, 36-element covariances, steering in angular.x', () => {
    const m = odometryMsg('car3', odom, 20_000_000n);
    expect(m.header).toEqual({ stamp: { sec: 0, nanosec: 20_000_000 }, frame_id: 'map' });
    expect(m.child_frame_id).toBe('car3/base_link');
    expect(m.pose.covariance).toHaveLength(36);
    expect(m.twist.covariance).toHaveLength(36);
    expect(m.twist.twist).toEqual({ linear: { x: 9.87, y: 0, z: 0 }, angular: { x: -0.12, y: 0, z: 0.05 } });
  });

  it('reads a message without the steering angle (any ROS publisher) as steering 0', () => {
    const m = odometryMsg('car0', odom, 0n) as unknown as { twist: { twist: { angular: Record<string, number> } } };
    delete m.twist.twist.angular.x;
    expect(parseOdometryMsg(m as never).steer).toBe(0);
  });

  it.each([
    [{}, 'header.stamp'],
    [{ header: { stamp: { sec: 1.5, nanosec: 0 } } }, 'integer sec and nanosec'],
    [{ header: { stamp: { sec: 1, nanosec: 2e9 } } }, 'integer sec and nanosec'],
  ])('rejects %j', (msg, error) => {
    expect(() => parseOdometryMsg(msg)).toThrow(error);
  });

  it('rejects a non-numeric position', () => {
    const m = JSON.parse(JSON.stringify(odometryMsg('car0', odom, 0n)));
    m.pose.pose.position.x = 'far';
    expect(() => parseOdometryMsg(m)).toThrow(ProtocolError);
  });
});

describe('ackermann_msgs/AckermannDriveStamped', () => {
  it('carries speed and steering angle both ways', () => {
    const m = driveMsg({ speed: 4.5, steer: 0.2 }, 30_000_000n, 'car0/base_link');
    expect(m.header.stamp).toEqual({ sec: 0, nanosec: 30_000_000 });
    expect(m.drive).toEqual({ steering_angle: 0.2, steering_angle_velocity: 0, speed: 4.5, acceleration: 0, jerk: 0 });
    expect(parseDriveMsg(JSON.parse(JSON.stringify(m)))).toEqual({ speed: 4.5, steer: 0.2 });
  });

  it('exposes the optional header stamp', () => {
    expect(optionalStampNs(driveMsg({ speed: 1, steer: 0 }, 1_020_000_000n, 'car0/base_link'))).toBe(1_020_000_000n);
    expect(optionalStampNs({ drive: { speed: 1 } })).toBeUndefined();
    expect(() => optionalStampNs({ header: { stamp: { sec: -1.5, nanosec: 0 } } })).toThrow(ProtocolError);
  });

  it('takes a bare drive with speed only (steering 0), as a minimal client sends it', () => {
    expect(parseDriveMsg({ drive: { speed: 1 } })).toEqual({ speed: 1, steer: 0 });
  });

  it.each([[{}], [{ drive: { steering_angle: 0.1 } }], [{ drive: { speed: 'fast' } }], [{ drive: { speed: 1, steering_angle: null } }]])(
    'rejects %j',
    (msg) => {
      expect(() => parseDriveMsg(msg as never)).toThrow(ProtocolError);
    },
  );
});

describe('std_msgs/String', () => {
  it('needs a string data field', () => {
    expect(parseStringMsg({ data: '{}' })).toBe('{}');
    expect(() => parseStringMsg({ data: 3 })).toThrow(ProtocolError);
  });
});
