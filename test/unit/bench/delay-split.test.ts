import { describe, expect, it } from 'vitest';
import { shareQuantiles, splitDelay, type TapFrame } from '../../../bench/delay-split.js';

const T0 = 1_000_000_000_000n;
const ms = (x: number) => BigInt(Math.round(x * 1e6));
const json = (id: string, sentNs: bigint) =>
  Buffer.from(JSON.stringify({ id, from: 'car0', to: '*', type: 'beacon', sentAtNs: String(sentNs), body: {} }));
const gn = (id: string, sentNs: bigint) =>
  Buffer.concat([
    Buffer.from(`${JSON.stringify({ id, from: 'car0', to: '*', type: 'cam', sentAtNs: String(sentNs), gn: 3 })}\n`),
    Buffer.from([1, 2, 3]),
  ]);

/** A frame sent at `sentMs`, on the sender's tap `inMs` later, out of ns-3 `outMs` after that. */
function frames(id: string, sentMs: number, inMs: number, outMs: number, encode = json): TapFrame[] {
  const sent = T0 + ms(sentMs);
  return [
    { tNs: sent + ms(inMs + outMs), dst: '10.0.0.2', payload: encode(id, sent) },
    { tNs: sent + ms(inMs), dst: '10.0.0.2', payload: encode(id, sent) },
  ];
}

describe('where an emulated frame’s time goes', () => {
  it('splits each frame into sender, ns-3 over the applied delay, receiver, and the step phase it left ns-3 in', () => {
    const all = [...frames('car0-1', 20, 0.2, 99.5), ...frames('car0-2', 70, 0.3, 99.6, gn)];
    const received = new Map([
      ['car0-1>10.0.0.2', T0 + ms(20 + 0.2 + 99.5 + 0.4)],
      ['car0-2>10.0.0.2', T0 + ms(70 + 0.3 + 99.6 + 2)],
    ]);
    const split = splitDelay({ frames: all, appliedMs: 99.4, received, t0Ns: T0, stepNs: ms(10), include: () => true });
    expect(split.senderToTapMs.map((x) => +x.toFixed(6))).toEqual([0.2, 0.3]);
    expect(split.ns3OverAppliedMs.map((x) => +x.toFixed(6))).toEqual([0.1, 0.2]);
    expect(split.tapToAppMs.map((x) => +x.toFixed(6))).toEqual([0.4, 2]);
    expect(split.stepPhaseMs.map((x) => +x.toFixed(6))).toEqual([9.7, 9.9]);
  });

  it('leaves out frames not included (probes), seen once (lost in ns-3), or not JSON', () => {
    const all = [
      ...frames('car0-probe-1', 0, 0.1, 1),
      frames('car0-3', 0, 0.1, 99)[1],
      { tNs: T0, dst: '10.0.0.2', payload: Buffer.from('stray') },
    ];
    const split = splitDelay({
      frames: all,
      appliedMs: 99,
      received: new Map(),
      t0Ns: T0,
      stepNs: ms(10),
      include: (id) => !id.includes('probe'),
    });
    expect(split).toEqual({ senderToTapMs: [], ns3OverAppliedMs: [], tapToAppMs: [], stepPhaseMs: [] });
  });

  it('gives p50 and p99 to the microsecond, and nothing without samples', () => {
    expect(shareQuantiles([0.3, 0.1, 0.2])).toEqual({ p50: 0.2, p99: 0.298, n: 3 });
    expect(shareQuantiles([])).toBeUndefined();
  });
});
