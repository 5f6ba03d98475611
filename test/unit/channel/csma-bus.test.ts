import { describe, expect, it } from 'vitest';
import { CsmaBus } from '../../../src/channel/builtin/csma-bus.js';
import { FRAME_OVERHEAD_BYTES } from '../../../src/channel/frames.js';

describe('simulated CSMA bus', () => {
  const frame = (payload: string, to = ['b']) => ({ payload, from: 'a', to, broadcast: to.length > 1, sizeBytes: 100 });

  it('delivers after transmission time plus the propagation delay', () => {
    const bus = new CsmaBus<string>({ delay: 0.01, dataRate: 1e6, loss: 0, seed: 1 });
    const arrival = bus.send(frame('m1'), 1);
    expect(arrival).toBeCloseTo(1 + ((100 + FRAME_OVERHEAD_BYTES) * 8) / 1e6 + 0.01, 12);
    expect(bus.deliverDue(1.005)).toEqual([]);
    expect(bus.deliverDue(1.02)).toEqual([{ payload: 'm1', to: 'b', at: arrival }]);
    expect(bus.deliverDue(2)).toEqual([]);
  });

  it('keeps the bus busy for the whole delay: back-to-back frames queue', () => {
    const bus = new CsmaBus<string>({ delay: 0.3, dataRate: 100e6, loss: 0, seed: 1 });
    const first = bus.send(frame('m1'), 0);
    const second = bus.send(frame('m2'), 0);
    expect(second - first).toBeCloseTo(0.3 + (146 * 8) / 100e6, 12);
  });

  it('broadcast reaches every receiver with one frame', () => {
    const bus = new CsmaBus<string>({ delay: 0.01, dataRate: 100e6, loss: 0, seed: 1 });
    bus.send(frame('hello', ['b', 'c', 'd']), 0);
    expect(bus.deliverDue(1).map((d) => d.to)).toEqual(['b', 'c', 'd']);
  });

  it('loses frames at the configured rate, the same ones for the same seed', () => {
    const run = (seed: number) => {
      const bus = new CsmaBus<number>({ delay: 0, dataRate: 1e9, loss: 0.3, seed });
      for (let i = 0; i < 2000; i++) bus.send({ payload: i, from: 'a', to: ['b'], broadcast: false, sizeBytes: 10 }, i);
      const outcomes = bus.deliverDue(1e9);
      expect(outcomes.filter((d) => d.lost).every((d) => d.lost === 'channel-loss')).toBe(true);
      expect(outcomes).toHaveLength(2000);
      return outcomes.filter((d) => !d.lost).map((d) => d.payload);
    };
    const delivered = run(7);
    expect(delivered.length / 2000).toBeGreaterThan(0.65);
    expect(delivered.length / 2000).toBeLessThan(0.75);
    expect(run(7)).toEqual(delivered);
    expect(run(8)).not.toEqual(delivered);
  });
});
