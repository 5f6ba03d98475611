/**
 * Where an emulated V2V frame's time goes, from captures on the cars' taps: the sender's share
 * (its stamp to the frame reaching its tap), ns-3's share over the delay it applied (in on one tap,
 * out on the other), and the receiver's (out of its tap to its program's receive stamp). Pure, so
 * unit-tested; the capture is bench/testbed/tap-capture.ts.
 */
import { interpolatedQuantile } from '../src/util/percentile.js';

/** One UDP frame seen on a tap: capture time [epoch ns], its destination address, its payload. */
export interface TapFrame {
  tNs: bigint;
  dst: string;
  payload: Buffer;
}

export interface DelaySplit {
  senderToTapMs: number[];
  ns3OverAppliedMs: number[];
  tapToAppMs: number[];
  /** Where in the physics step [ms] each frame left ns-3 (0: as the step's odometry goes out). */
  stepPhaseMs: number[];
}

interface Stamped {
  id: string;
  sentNs: bigint;
}

/** A datagram's identity and send stamp, from its first line (a GN datagram's header, or the whole JSON). */
function stamped(payload: Buffer): Stamped | undefined {
  const newline = payload.indexOf(0x0a);
  const text = payload.subarray(0, newline < 0 ? payload.length : newline).toString('utf8');
  try {
    const d = JSON.parse(text) as { id?: unknown; sentAtNs?: unknown };
    return typeof d.id === 'string' && typeof d.sentAtNs === 'string' ? { id: d.id, sentNs: BigInt(d.sentAtNs) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `received`: each delivered frame's receive stamp [epoch ns] by `${id}>${receiver address}`;
 * `include`: which frames count (the run's, not the stack-share probes'). A frame seen other than
 * twice (in and out) is left out.
 */
export function splitDelay(p: {
  frames: readonly TapFrame[];
  appliedMs: number;
  received: ReadonlyMap<string, bigint>;
  t0Ns: bigint;
  stepNs: bigint;
  include: (id: string) => boolean;
}): DelaySplit {
  const seen = new Map<string, { sentNs: bigint; times: bigint[] }>();
  for (const f of p.frames) {
    const s = stamped(f.payload);
    if (!s || !p.include(s.id)) continue;
    const key = `${s.id}>${f.dst}`;
    const entry = seen.get(key) ?? { sentNs: s.sentNs, times: [] };
    entry.times.push(f.tNs);
    seen.set(key, entry);
  }
  const ms = (ns: bigint) => Number(ns) / 1e6;
  const split: DelaySplit = { senderToTapMs: [], ns3OverAppliedMs: [], tapToAppMs: [], stepPhaseMs: [] };
  for (const [key, { sentNs, times }] of seen) {
    if (times.length !== 2) continue;
    const [inNs, outNs] = times[0] < times[1] ? times : [times[1], times[0]];
    split.senderToTapMs.push(ms(inNs - sentNs));
    split.ns3OverAppliedMs.push(ms(outNs - inNs) - p.appliedMs);
    const receivedNs = p.received.get(key);
    if (receivedNs === undefined) continue;
    split.tapToAppMs.push(ms(receivedNs - outNs));
    split.stepPhaseMs.push(ms((((outNs - p.t0Ns) % p.stepNs) + p.stepNs) % p.stepNs));
  }
  return split;
}

/** p50 and p99 of a share [ms], rounded to the microsecond; undefined without samples. */
export function shareQuantiles(xs: readonly number[]): { p50: number; p99: number; n: number } | undefined {
  if (!xs.length) return undefined;
  const sorted = [...xs].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { p50: r(interpolatedQuantile(sorted, 0.5)), p99: r(interpolatedQuantile(sorted, 0.99)), n: sorted.length };
}
