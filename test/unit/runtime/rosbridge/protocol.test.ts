import { describe, expect, it } from 'vitest';
import { canonicalType, parseClientOp } from '../../../../src/runtime/rosbridge/protocol.js';

describe('parseClientOp', () => {
  it.each([
    [
      { op: 'advertise', id: 'a1', topic: '/car0/drive', type: 'ackermann_msgs/msg/AckermannDriveStamped' },
      { op: 'advertise', id: 'a1', topic: '/car0/drive', type: 'ackermann_msgs/msg/AckermannDriveStamped', latch: false },
    ],
    [
      { op: 'advertise', topic: '/sim_control', type: 'std_msgs/String', latch: true },
      { op: 'advertise', topic: '/sim_control', type: 'std_msgs/msg/String', latch: true },
    ],
    [
      { op: 'unadvertise', topic: '/car0/drive' },
      { op: 'unadvertise', topic: '/car0/drive' },
    ],
    [
      { op: 'publish', topic: '/sim_control', msg: { data: 'x' } },
      { op: 'publish', topic: '/sim_control', msg: { data: 'x' } },
    ],
    [
      {
        op: 'subscribe',
        id: 's',
        topic: '/car1/odom',
        type: 'nav_msgs/msg/Odometry',
        throttle_rate: 0,
        queue_length: 0,
        compression: 'none',
      },
      { op: 'subscribe', id: 's', topic: '/car1/odom', type: 'nav_msgs/msg/Odometry', compression: 'none' },
    ],
    [
      { op: 'subscribe', topic: '/car1/odom' },
      { op: 'subscribe', topic: '/car1/odom' },
    ],
    [
      { op: 'unsubscribe', id: 's', topic: '/car1/odom' },
      { op: 'unsubscribe', id: 's', topic: '/car1/odom' },
    ],
  ])('accepts %j', (frame, expected) => {
    expect(parseClientOp(JSON.stringify(frame))).toEqual({ ok: true, op: expected });
  });

  it.each([
    ['not json', 'frame is not JSON', undefined],
    ['[1,2]', 'frame is not a JSON object', undefined],
    ['{"id":"x"}', 'missing "op"', 'x'],
    ['{"op":"call_service","id":"c","service":"/reset"}', 'unsupported op "call_service"', 'c'],
    ['{"op":"subscribe","topic":"car0/odom"}', '"topic" must be an absolute ROS name', undefined],
    ['{"op":"subscribe","topic":"/car0//odom"}', '"topic" must be an absolute ROS name', undefined],
    ['{"op":"advertise","topic":"/a"}', '"type" must be a message type', undefined],
    ['{"op":"advertise","topic":"/a","type":"String"}', '"type" must be a message type', undefined],
    ['{"op":"publish","topic":"/a","msg":"hello"}', '"msg" must be a JSON object', undefined],
    ['{"op":"publish","topic":"/a"}', '"msg" must be a JSON object', undefined],
    ['{"op":"subscribe","topic":"/a","type":3}', '"type" is not a message type', undefined],
  ])('rejects %s', (text, error, id) => {
    const r = parseClientOp(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toContain(error);
    expect(r.id).toBe(id);
  });
});

describe('canonicalType', () => {
  it('maps the ROS 1 spelling onto the ROS 2 one and leaves ROS 2 names alone', () => {
    expect(canonicalType('std_msgs/String')).toBe('std_msgs/msg/String');
    expect(canonicalType('nav_msgs/msg/Odometry')).toBe('nav_msgs/msg/Odometry');
  });
});
