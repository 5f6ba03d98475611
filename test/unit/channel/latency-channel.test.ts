import { describe, expect, it } from 'vitest';
import { CsmaBus } from '../../../src/channel/builtin/csma-bus.js';
import { LatencyChannel } from '../../../src/channel/builtin/latency-channel.js';
import { FRAME_OVERHEAD_BYTES, serialisationTime, type V2VChannel } from '../../../src/channel/frames.js';

const channel = (over: Partial<ConstructorParameters<typeof LatencyChannel>[0]> = {}) =>
  new LatencyChannel<number>({ delay: 0.1, jitter: 0, dataRate: 2e6, loss: 0, seed: 1, ...over });

describe('latency channel', () => {
  it('a lone frame arrives its serialisation time plus the delay after it was sent', () => {
    const ch = channel();
    ch.send({ payload: 1, from: 'a', to: ['b'], broadcast: false, sizeBytes: 100 }, 1);
    expect(ch.deliverDue(1.1)).toEqual([]);
    const [d] = ch.deliverDue(1.2);
    expect(d.to).toBe('b');
    expect(d.at).toBeCloseTo(1 + ((100 + FRAME_OVERHEAD_BYTES) * 8) / 2e6 + 0.1, 12);
  });

  it('at 100 ms and 2 Mbps a sender pushes frames back-to-back at >= 90% of the data rate; csma carries ~10 frames/s', () => {
    const payload = 1000;
    const window = 10; // s of arrivals counted, after the first one
    const offered = (model: V2VChannel<number>) => {
      for (let i = 0; i < 3000; i++) model.send({ payload: i, from: 'a', to: ['b'], broadcast: false, sizeBytes: payload }, 0);
      const all = model.deliverDue(Infinity);
      return all.filter((d) => d.at <= all[0].at + window);
    };
    const latency = offered(channel());
    const goodput = (latency.length * payload * 8) / window;
    expect(goodput / 2e6).toBeGreaterThanOrEqual(0.9);
    // every frame still takes the delay: the first after one serialisation, the rest queued behind it
    expect(latency[0].at).toBeCloseTo(serialisationTime(payload, 2e6) + 0.1, 12);
    const csma = offered(new CsmaBus<number>({ delay: 0.1, dataRate: 2e6, loss: 0, seed: 1 }));
    expect(csma.length / window).toBeGreaterThan(9);
    expect(csma.length / window).toBeLessThan(10.5);
  });

  it('each sender has its own transmit queue: one busy sender does not delay another', () => {
    const ch = channel();
    for (let i = 0; i < 100; i++) ch.send({ payload: i, from: 'a', to: ['c'], broadcast: false, sizeBytes: 1000 }, 0);
    ch.send({ payload: -1, from: 'b', to: ['c'], broadcast: false, sizeBytes: 100 }, 0);
    const fromB = ch.deliverDue(Infinity).find((d) => d.payload === -1)!;
    expect(fromB.at).toBeCloseTo(serialisationTime(100, 2e6) + 0.1, 12);
  });

  it('a broadcast is serialised once and reaches every receiver', () => {
    const ch = channel();
    ch.send({ payload: 1, from: 'a', to: ['b', 'c', 'd'], broadcast: false, sizeBytes: 100 }, 0);
    const ds = ch.deliverDue(1);
    expect(ds.map((d) => d.to)).toEqual(['b', 'c', 'd']);
    expect(new Set(ds.map((d) => d.at)).size).toBe(1);
  });

  it('jitter is uniform in [0, jitter], deliveries come out in arrival order, the same for one seed', () => {
    const run = (seed: number) => {
      const ch = channel({ delay: 0.01, jitter: 0.004, dataRate: 1e9, seed });
      for (let i = 0; i < 4000; i++) ch.send({ payload: i, from: 'a', to: ['b'], broadcast: false, sizeBytes: 10 }, i * 0.001);
      return ch
        .deliverDue(Infinity)
        .map((d) => ({ i: d.payload, extra: d.at - d.payload * 0.001 - serialisationTime(10, 1e9) - 0.01, at: d.at }));
    };
    const got = run(3);
    const extras = got.map((d) => d.extra);
    expect(Math.min(...extras)).toBeGreaterThanOrEqual(-1e-12);
    expect(Math.max(...extras)).toBeLessThanOrEqual(0.004 + 1e-12);
    const mean = extras.reduce((s, x) => s + x, 0) / extras.length;
    expect(mean).toBeGreaterThan(0.0019);
    expect(mean).toBeLessThan(0.0021);
    const below1ms = extras.filter((x) => x < 0.001).length / extras.length;
    expect(below1ms).toBeGreaterThan(0.22);
    expect(below1ms).toBeLessThan(0.28);
    for (let k = 1; k < got.length; k++) expect(got[k].at).toBeGreaterThanOrEqual(got[k - 1].at);
    expect(got.some((d, k) => k > 0 && d.i < got[k - 1].i)).toBe(true); // frames 1 ms apart with 4 ms of jitter overtake
    expect(run(3)).toEqual(got);
    expect(run(4)).not.toEqual(got);
  });

  it('loses frames per receiver at the configured rate, without changing the jitter of the others', () => {
    const run = (loss: number) => {
      const ch = channel({ delay: 0, jitter: 0.005, dataRate: 1e9, loss, seed: 9 });
      for (let i = 0; i < 2000; i++) ch.send({ payload: i, from: 'a', to: ['b', 'c'], broadcast: false, sizeBytes: 10 }, i);
      const outcomes = ch.deliverDue(Infinity);
      expect(outcomes).toHaveLength(4000);
      return outcomes.filter((d) => !d.lost);
    };
    const all = run(0);
    const lossy = run(0.3);
    expect(lossy.length / all.length).toBeGreaterThan(0.65);
    expect(lossy.length / all.length).toBeLessThan(0.75);
    const at = new Map(all.map((d) => [`${d.payload}-${d.to}`, d.at]));
    for (const d of lossy) expect(d.at).toBe(at.get(`${d.payload}-${d.to}`));
  });
});
