import { describe, expect, it } from 'vitest';
import { ClockOffsetEstimator, offsetOf } from '../../../src/measurement/clock-offset.js';

const ms = (x: number) => BigInt(Math.round(x * 1e6));
/** An exchange with a device whose clock is `offset` ms ahead, legs of `up` and `down` ms, `hold` ms on the device. */
const exchange = (t1: number, offset: number, up: number, down: number, hold = 0.1) => ({
  t1: ms(t1),
  t2: ms(t1 + up + offset),
  t3: ms(t1 + up + hold + offset),
  t4: ms(t1 + up + hold + down),
});

describe('clock offset (NTP-style)', () => {
  it.each([
    [0, 1, 1],
    [200, 0.5, 0.5],
    [-35.5, 2, 2],
  ])('is exact for symmetric legs: offset %s ms', (offset, up, down) => {
    const e = offsetOf(exchange(1e6, offset, up, down));
    expect(e.offsetNs / 1e6).toBeCloseTo(offset, 6);
    expect(e.rttNs / 1e6).toBeCloseTo(up + down, 6);
  });

  it('errs by half the difference of the legs, never more than half the round trip', () => {
    const e = offsetOf(exchange(1e6, 10, 4, 1));
    expect(e.offsetNs / 1e6).toBeCloseTo(10 + 1.5, 6);
    expect(Math.abs(e.offsetNs / 1e6 - 10)).toBeLessThanOrEqual(e.rttNs / 2e6);
  });

  it('keeps the recent exchange with the shortest round trip, and the largest estimate the run had', () => {
    const c = new ClockOffsetEstimator();
    c.add(exchange(0, 5, 20, 2));
    c.add(exchange(10, 5, 0.2, 0.2));
    c.add(exchange(20, 5, 3, 9));
    expect(c.current!.offsetNs / 1e6).toBeCloseTo(5, 6);
    const f = c.figures();
    expect(f).toMatchObject({ samples: 3, offset_ms: 5, rtt_max_ms: 22 });
    expect(f.offset_max_abs_ms).toBeCloseTo(14, 3);
  });

  it('judges how far off the clock certainly was: |offset| less half the round trip, so a lopsided busy link alone is not an offset', () => {
    const busy = new ClockOffsetEstimator();
    busy.add(exchange(0, 0, 20, 1));
    expect(busy.figures().offset_max_abs_ms).toBeCloseTo(9.5, 3);
    expect(busy.figures().offset_certain_ms).toBe(0);
    const off = new ClockOffsetEstimator();
    off.add(exchange(0, 200, 1, 1));
    expect(off.figures().offset_certain_ms).toBeCloseTo(199, 3);
  });

  it('ignores an exchange during which the device clock stepped back (negative round trip)', () => {
    const c = new ClockOffsetEstimator();
    c.add(exchange(0, 5, 1, 1));
    c.add({ t1: 0n, t2: ms(100), t3: ms(300), t4: ms(2) });
    expect(c.figures().samples).toBe(1);
    expect(c.current!.offsetNs / 1e6).toBeCloseTo(5, 6);
  });
});
