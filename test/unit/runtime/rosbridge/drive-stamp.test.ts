import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../../src/runtime/rosbridge/protocol.js';
import { driveStampNs } from '../../../../src/runtime/rosbridge/ros-messages.js';

const drive = (header: unknown) => ({ header, drive: { speed: 1, steering_angle: 0 } }) as never;
const NEWEST = 2_000_000_000n; // the tick at t = 2 s was the last sent

describe('driveStampNs: a drive command answers a tick it has seen (both runtimes)', () => {
  it('no header, or a header without a stamp, is an unstamped answer', () => {
    expect(driveStampNs(drive(undefined), NEWEST)).toBeUndefined();
    expect(driveStampNs(drive({ frame_id: 'car0' }), NEWEST)).toBeUndefined();
  });

  it('the newest tick or an earlier one is its stamp', () => {
    expect(driveStampNs(drive({ stamp: { sec: 2, nanosec: 0 } }), NEWEST)).toBe(NEWEST);
    expect(driveStampNs(drive({ stamp: { sec: 1, nanosec: 990_000_000 } }), NEWEST)).toBe(1_990_000_000n);
  });

  it.each([
    ['from the future', { stamp: { sec: 2 ** 53 + 1, nanosec: 0 } }, /ahead of the newest tick sent \(2000000000 ns\)/],
    ['one nanosecond ahead', { stamp: { sec: 2, nanosec: 1 } }, /ahead of the newest tick/],
    ['a string', { stamp: 'yesterday' }, /header\.stamp/],
    ['null', { stamp: null }, /header\.stamp/],
    ['fractions', { stamp: { sec: 1, nanosec: 0.5 } }, /header\.stamp needs integer sec and nanosec/],
  ])('a stamp %s is refused, naming header.stamp', (_what, header, message) => {
    expect(() => driveStampNs(drive(header), NEWEST)).toThrow(ProtocolError);
    expect(() => driveStampNs(drive(header), NEWEST)).toThrow(message);
  });

  it('a header that is no object is refused; before any tick every stamp is from the future', () => {
    expect(() => driveStampNs(drive('now'), NEWEST)).toThrow(/header must be an object with a stamp/);
    expect(() => driveStampNs(drive({ stamp: { sec: 0, nanosec: 0 } }), undefined)).toThrow(/none yet/);
  });
});
