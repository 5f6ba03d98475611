import { describe, expect, it } from 'vitest';
import {
  type ArrivedFrame,
  ageSamples,
  busyWindows,
  camFigures,
  channelBusyFigures,
  type LostFrame,
  onAirSeconds,
} from '../../../src/measurement/cam-metrics.js';
import type { V2VTransmission } from '../../../src/measurement/recorder.js';

const cam = (id: string, from: string, to: string[], sentAt: number, sizeBytes = 85): V2VTransmission => ({
  id,
  from,
  to,
  type: 'cam',
  sentAt,
  sizeBytes,
  gnPacket: true,
});
const got = (f: V2VTransmission, to: string, receivedAt: number): ArrivedFrame => ({
  id: f.id,
  from: f.from,
  to,
  type: f.type,
  sentAt: f.sentAt,
  receivedAt,
});

describe('CAM figures per sender and receiver', () => {
  it('on a lossless channel: every CAM delivered, inter-reception times and ages of the known timeline', () => {
    // a sends at 0, 0.1, 0.3, 0.7 (intervals 100, 200, 400 ms); each arrives 20 ms later at b
    const sent = [0, 0.1, 0.3, 0.7].map((t, k) => cam(`a${k}`, 'a', ['b'], t));
    const arrived = sent.map((f) => got(f, 'b', f.sentAt + 0.02));
    const f = camFigures(sent, arrived, [], 0.01, 1)!;
    expect(f.pairs).toHaveLength(1);
    const p = f.pairs[0];
    expect([p.from, p.to, p.sent, p.received, p.delivery_ratio]).toEqual(['a', 'b', 4, 4, 1]);
    // IRT: 100, 200, 400 ms: mean 233.333, median 200, p95 interpolated 380, max 400
    expect(p.inter_reception!.mean_ms).toBeCloseTo(233.333, 3);
    expect(p.inter_reception!.p50_ms).toBeCloseTo(200, 6);
    expect(p.inter_reception!.p95_ms).toBeCloseTo(380, 6);
    expect(p.inter_reception!.max_ms).toBeCloseTo(400, 6);
    // AoI sampled every 10 ms from 20 ms to 1 s: teeth 20..110 (10 samples), 20..210 (20), 20..410 (40), then 20..300 (29, to 1 s)
    const tooth = (lo: number, n: number) => Array.from({ length: n }, (_, i) => lo + 10 * i);
    const ages = [...tooth(20, 10), ...tooth(20, 20), ...tooth(20, 40), ...tooth(20, 29)];
    expect(p.age!.mean_ms).toBeCloseTo(ages.reduce((s, a) => s + a, 0) / ages.length, 3);
    expect(p.age!.max_ms).toBeCloseTo(410, 6);
    expect(f.senders).toEqual([
      { vehicle: 'a', sent: 4, rate_hz: 4, interval: { mean_ms: 233.333, p50_ms: 200, p95_ms: 380, max_ms: 400 } },
    ]);
    expect(f.all).toMatchObject({ sent: 4, received: 4, delivery_ratio: 1 });
  });

  it('a lost CAM lowers the delivery ratio and lengthens the gap and the age; in flight at the end counts in neither', () => {
    const sent = [0, 0.5, 1, 1.5, 1.95].map((t, k) => cam(`a${k}`, 'a', ['b', 'c'], t));
    const lost: LostFrame[] = [
      { id: 'a1', to: 'b', reason: 'channel-loss' },
      { id: 'a4', to: 'b', reason: 'run-ended' },
      { id: 'a4', to: 'c', reason: 'run-ended' },
    ];
    const arrived = [
      ...sent
        .slice(0, 4)
        .filter((f) => f.id !== 'a1')
        .map((f) => got(f, 'b', f.sentAt + 0.01)),
      ...sent.slice(0, 4).map((f) => got(f, 'c', f.sentAt + 0.01)),
    ];
    const f = camFigures(sent, arrived, lost, 0.01, 2)!;
    const [ab, ac] = f.pairs;
    expect([ab.to, ab.sent, ab.received, ab.delivery_ratio]).toEqual(['b', 4, 3, 0.75]);
    expect([ac.to, ac.sent, ac.received, ac.delivery_ratio]).toEqual(['c', 4, 4, 1]);
    expect(ab.inter_reception!.max_ms).toBeCloseTo(1000, 6);
    expect(ac.inter_reception!.max_ms).toBeCloseTo(500, 6);
    // b held the CAM of t = 0 until the one of 1 s arrived at 1.01 s: 1000 ms old at the sample before; c at most 500 ms
    expect(ab.age!.max_ms).toBeCloseTo(1000, 6);
    expect(ac.age!.max_ms).toBeCloseTo(500, 6);
    expect(f.all).toMatchObject({ sent: 8, received: 7, delivery_ratio: 0.875 });
  });

  it('counts a duplicate arrival once and an overtaken CAM makes the information no younger', () => {
    const sent = [cam('x0', 'a', ['b'], 0), cam('x1', 'a', ['b'], 0.2)];
    const arrived = [got(sent[0], 'b', 0.01), got(sent[1], 'b', 0.21), got(sent[1], 'b', 0.25)];
    const f = camFigures(sent, arrived, [], 0.01, 0.3)!;
    expect(f.pairs[0]).toMatchObject({ sent: 2, received: 2, delivery_ratio: 1 });
    const ages = ageSamples(
      [
        { sentAt: 0, receivedAt: 0.01 },
        { sentAt: 0.2, receivedAt: 0.21 },
        { sentAt: 0.1, receivedAt: 0.3 },
      ],
      0.01,
      0.4,
    );
    expect(Math.max(...ages)).toBeCloseTo(0.2, 9);
    expect(ages[ages.length - 1]).toBeCloseTo(0.2, 9); // at 0.4 s: the CAM of 0.2 s, not the late one of 0.1 s
  });

  it('is null without CAMs and leaves other messages out', () => {
    expect(camFigures([{ id: 'b0', from: 'a', to: ['b'], type: 'beacon', sentAt: 0, sizeBytes: 300 }], [], [], 0.01, 1)).toBeNull();
    const f = camFigures(
      [cam('c0', 'a', ['b'], 0), { id: 'b0', from: 'a', to: ['b'], type: 'beacon', sentAt: 0, sizeBytes: 300 }],
      [],
      [],
      0.01,
      1,
    )!;
    expect(f.pairs[0]).toMatchObject({ sent: 1, received: 0, delivery_ratio: 0, inter_reception: null, age: null });
  });
});

describe('channel busy ratio', () => {
  it('times a frame on the 802.11p air by the OFDM formula (10 MHz: 32 + 8 us, 8 us symbols)', () => {
    // 85-octet GN packet + 38 MAC/LLC/FCS = 123 octets: 16 + 984 + 6 = 1006 bits over 48 per symbol -> 21 symbols
    expect(onAirSeconds(85)).toBeCloseTo(40e-6 + 21 * 8e-6, 12);
    // 87 octets: 1022 bits -> 22 symbols; at 12 Mb/s (96 bits a symbol) 11
    expect(onAirSeconds(87)).toBeCloseTo(40e-6 + 22 * 8e-6, 12);
    expect(onAirSeconds(87, 12e6)).toBeCloseTo(40e-6 + 11 * 8e-6, 12);
  });

  it('adds the on-air times per 100 ms window, a frame sent while the medium is busy after the one before, a frame across a boundary in both', () => {
    const air = onAirSeconds(85);
    const frames = [
      { sentAt: 0.01, sizeBytes: 85, gnPacket: true },
      { sentAt: 0.01, sizeBytes: 85, gnPacket: true }, // same instant: deferred to 0.01 + air
      { sentAt: 0.1 - air / 4, sizeBytes: 85, gnPacket: true }, // a quarter in window 0, the rest in window 1
      { sentAt: 0.15, sizeBytes: 85, gnPacket: true },
      { sentAt: 0.15 + air / 2, sizeBytes: 85, gnPacket: true }, // deferred by half its length
    ];
    const w = busyWindows(frames, 0.3);
    expect(w.map((x) => x.frames)).toEqual([3, 2, 0]);
    expect(w[0].busy).toBeCloseTo((2 * air + air / 4) / 0.1, 9);
    expect(w[1].busy).toBeCloseTo((0.75 * air + 2 * air) / 0.1, 9);
    expect(w[2].busy).toBe(0);
    const f = channelBusyFigures(w);
    expect(f.max).toBeCloseTo(w[1].busy, 6);
    expect(f.mean).toBeCloseTo((w[0].busy + w[1].busy) / 3, 6);
    expect(f).toMatchObject({ method: 'on-air-estimate', window_s: 0.1, rate_bps: 6e6 });
  });

  it('puts a JSON payload in a GN single-hop broadcast packet (44 octets more) and divides a short last window by its length', () => {
    const w = busyWindows([{ sentAt: 0.2, sizeBytes: 41 }], 0.25);
    expect(w).toHaveLength(3);
    expect(w[2].busy).toBeCloseTo(onAirSeconds(85) / 0.05, 9);
    // a saturated window reads 1
    const full = busyWindows(
      Array.from({ length: 1000 }, (_, k) => ({ sentAt: k * 1e-4, sizeBytes: 300 })),
      0.1,
    );
    expect(full[0].busy).toBeCloseTo(1, 6);
  });
});
