import type { LossReason } from '../channel/frames.js';
import { CAM_MESSAGE } from '../core/v2x/facilities/ca-service.js';
import { interpolatedQuantile } from '../util/percentile.js';
import type { V2VTransmission } from './recorder.js';

/**
 * CAM reception figures per (sender, receiver) and the channel busy ratio, from what a run sent and
 * what arrived (docs/v2x-messages.md, "Measuring CAMs"). Pure: the recorder's lists in, figures out.
 */

export interface ArrivedFrame {
  id: string;
  from: string;
  to: string;
  type: string;
  sentAt: number;
  receivedAt: number;
}

export interface LostFrame {
  id: string;
  to: string;
  reason: LossReason | 'not-received' | 'malformed';
}

/** Mean, median, 95th percentile (interpolated) and maximum [ms]. */
export interface Spread {
  mean_ms: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

export interface CamPair {
  from: string;
  to: string;
  /** CAMs the sender sent while the receiver was there to get them, less those in flight at the end. */
  sent: number;
  /** Of those, the CAMs that arrived (once each). */
  received: number;
  delivery_ratio: number | null;
  /** Time between consecutive arrivals; null with fewer than two. */
  inter_reception: Spread | null;
  /** Age of the newest CAM the receiver holds about the sender, sampled every physics step from the first arrival. */
  age: Omit<Spread, 'p50_ms'> | null;
}

export interface CamSender {
  vehicle: string;
  sent: number;
  /** CAMs per second of the run. */
  rate_hz: number;
  /** Time between consecutive CAMs of this car (the generation rules' T_GenCam); null with fewer than two. */
  interval: Spread | null;
}

export interface CamFigures {
  senders: CamSender[];
  pairs: CamPair[];
  /** Every pair pooled: CAMs, deliveries, every gap between arrivals and every age sample. */
  all: {
    sent: number;
    received: number;
    delivery_ratio: number | null;
    inter_reception: Spread | null;
    age: Omit<Spread, 'p50_ms'> | null;
  };
}

/** Sorts in place. */
export function spread(values: Float64Array): Spread | null {
  if (!values.length) return null;
  values.sort();
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return {
    mean_ms: ms(sum / values.length),
    p50_ms: ms(interpolatedQuantile(values, 0.5)),
    p95_ms: ms(interpolatedQuantile(values, 0.95)),
    max_ms: ms(values[values.length - 1]),
  };
}

const ms = (s: number) => +(s * 1000).toFixed(3);
const withoutMedian = (s: Spread | null) => s && { mean_ms: s.mean_ms, p95_ms: s.p95_ms, max_ms: s.max_ms };
const ratio = (a: number, b: number) => (b ? +(a / b).toFixed(6) : null);
const gaps = (sorted: readonly number[]) => Float64Array.from(sorted.slice(1), (t, i) => t - sorted[i]);
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Age of information samples at t = k * step for every k with first arrival <= t <= end: t minus the
 * generation time of the newest CAM that had arrived by t (an overtaken CAM does not make it younger).
 */
export function ageSamples(arrivals: readonly { sentAt: number; receivedAt: number }[], step: number, end: number): Float64Array {
  const sorted = [...arrivals].sort((a, b) => a.receivedAt - b.receivedAt);
  if (!sorted.length) return new Float64Array(0);
  const first = Math.ceil(sorted[0].receivedAt / step - 1e-9);
  const last = Math.floor(end / step + 1e-9);
  const out = new Float64Array(Math.max(0, last - first + 1));
  let next = 0;
  let newest = -Infinity;
  for (let k = first; k <= last; k++) {
    const t = k * step;
    while (next < sorted.length && sorted[next].receivedAt <= t + 1e-12) newest = Math.max(newest, sorted[next++].sentAt);
    out[k - first] = t - newest;
  }
  return out;
}

/**
 * CAM figures of a run. `frames`: everything sent (CAMs are picked by type); `arrived`, `lost`: one
 * outcome per (frame, receiver) (duplicates of an arrival count once); `step`: the physics step at
 * which ages are sampled; `end`: the run's last simulated time. A CAM still in flight when the run
 * ended (`run-ended`) counts neither as sent nor as received. Null when no car sent a CAM.
 */
export function camFigures(
  frames: readonly V2VTransmission[],
  arrived: readonly ArrivedFrame[],
  lost: readonly LostFrame[],
  step: number,
  end: number,
): CamFigures | null {
  // a malformed "CAM" was never one (message-gate.ts): not sent, not received, in no rate
  const cams = frames.filter((f) => f.type === CAM_MESSAGE && !f.malformed);
  if (!cams.length) return null;
  const inFlight = new Set(lost.filter((l) => l.reason === 'run-ended').map((l) => `${l.id}\0${l.to}`));
  const key = (from: string, to: string) => `${from}\0${to}`;
  const pairs = new Map<string, { from: string; to: string; sent: number; arrivals: Map<string, ArrivedFrame> }>();
  const pairOf = (from: string, to: string) => {
    let p = pairs.get(key(from, to));
    if (!p) pairs.set(key(from, to), (p = { from, to, sent: 0, arrivals: new Map() }));
    return p;
  };
  const sentTimes = new Map<string, number[]>();
  for (const f of cams) {
    let times = sentTimes.get(f.from);
    if (!times) sentTimes.set(f.from, (times = []));
    times.push(f.sentAt);
    for (const to of f.to) {
      const p = pairOf(f.from, to);
      if (!inFlight.has(`${f.id}\0${to}`)) p.sent++;
    }
  }
  for (const a of arrived) {
    if (a.type !== CAM_MESSAGE) continue;
    const p = pairOf(a.from, a.to);
    const known = p.arrivals.get(a.id);
    if (!known || a.receivedAt < known.receivedAt) p.arrivals.set(a.id, a);
  }
  const allGaps: number[] = [];
  const allAges: number[] = [];
  let sent = 0;
  let received = 0;
  const pairFigures = [...pairs.values()]
    .sort((a, b) => byName(a.from, b.from) || byName(a.to, b.to))
    .map((p): CamPair => {
      const arrivals = [...p.arrivals.values()];
      const times = arrivals.map((a) => a.receivedAt).sort((a, b) => a - b);
      const irt = gaps(times);
      const ages = ageSamples(arrivals, step, end);
      allGaps.push(...irt);
      for (const a of ages) allAges.push(a);
      sent += p.sent;
      received += arrivals.length;
      return {
        from: p.from,
        to: p.to,
        sent: p.sent,
        received: arrivals.length,
        delivery_ratio: ratio(arrivals.length, p.sent),
        inter_reception: spread(irt),
        age: withoutMedian(spread(ages)),
      };
    });
  const senders = [...sentTimes.entries()]
    .sort(([a], [b]) => byName(a, b))
    .map(
      ([vehicle, times]): CamSender => ({
        vehicle,
        sent: times.length,
        rate_hz: end > 0 ? +(times.length / end).toFixed(3) : 0,
        interval: spread(gaps([...times].sort((a, b) => a - b))),
      }),
    );
  return {
    senders,
    pairs: pairFigures,
    all: {
      sent,
      received,
      delivery_ratio: ratio(received, sent),
      inter_reception: spread(Float64Array.from(allGaps)),
      age: withoutMedian(spread(Float64Array.from(allAges))),
    },
  };
}

/**
 * 802.11p (IEEE 802.11-2016 clause 17, OFDM in a 10 MHz channel) on the air: a 32 us preamble, an
 * 8 us SIGNAL symbol, then the 16-bit SERVICE field, the MAC frame and 6 tail bits in 8 us symbols
 * of N_DBPS = rate * 8 us data bits each. The MAC frame of an ITS-G5 packet is the QoS data header
 * (26 octets), LLC/SNAP (8) and the FCS (4) around the GeoNetworking packet.
 */
export const OFDM_10MHZ = { preambleS: 32e-6, signalS: 8e-6, symbolS: 8e-6 } as const;
export const MAC_OVERHEAD_BYTES = 26 + 8 + 4;
/** GN basic (4) + common (8) + SHB (28) headers and BTP-B (4): what v2v.pcap wraps a JSON payload in. */
export const GN_SHB_BTP_BYTES = 44;
/** ITS-G5's default control channel rate, 6 Mb/s (QPSK 1/2 in 10 MHz). */
export const ITS_G5_DEFAULT_RATE = 6e6;

/** Seconds a GeoNetworking packet of `gnBytes` occupies an 802.11p channel at `rate` bit/s. */
export function onAirSeconds(gnBytes: number, rate = ITS_G5_DEFAULT_RATE): number {
  const bitsPerSymbol = rate * OFDM_10MHZ.symbolS;
  const symbols = Math.ceil((16 + 8 * (gnBytes + MAC_OVERHEAD_BYTES) + 6) / bitsPerSymbol);
  return OFDM_10MHZ.preambleS + OFDM_10MHZ.signalS + symbols * OFDM_10MHZ.symbolS;
}

/** The GN packet a frame is on the air: its own bytes for a standard message, else its payload in a SHB packet. */
export const gnBytesOf = (f: Pick<V2VTransmission, 'sizeBytes' | 'gnPacket'>) =>
  f.gnPacket ? f.sizeBytes : f.sizeBytes + GN_SHB_BTP_BYTES;

export interface BusyWindow {
  /** Start of the window [s]. */
  t: number;
  /** Frames whose time on the air began in it. */
  frames: number;
  /** Share of the window during which some frame was on the air. */
  busy: number;
}

export interface ChannelBusyFigures {
  /** How the busy time was found. */
  method: 'on-air-estimate';
  window_s: number;
  rate_bps: number;
  mean: number;
  p95: number;
  max: number;
}

/** T_CBR: CBR is measured over 100 ms (TS 102 687, EN 302 663). */
export const CBR_WINDOW_S = 0.1;

/**
 * Channel busy ratio per window of `window` seconds over [0, end): the share of the window during
 * which a frame was on the air, each frame `onAirSeconds` at `rate` long, from its send time or,
 * when the medium is busy then, from when the frame before it ends (carrier sense defers it; AIFS
 * and back-off are left out). Every car hears every other on the builtin channels, so this is each
 * car's CBR as well as the channel's. `frames` counts the frames sent in the window.
 */
export function busyWindows(
  frames: readonly Pick<V2VTransmission, 'sentAt' | 'sizeBytes' | 'gnPacket'>[],
  end: number,
  rate = ITS_G5_DEFAULT_RATE,
  window = CBR_WINDOW_S,
): BusyWindow[] {
  const count = Math.max(1, Math.ceil(end / window - 1e-9));
  const windows: BusyWindow[] = Array.from({ length: count }, (_, k) => ({ t: +(k * window).toFixed(9), frames: 0, busy: 0 }));
  const busy = new Float64Array(count);
  const sorted = frames.map((f) => ({ at: f.sentAt, air: onAirSeconds(gnBytesOf(f), rate) })).sort((a, b) => a.at - b.at);
  // the busy time, each piece added to the windows it overlaps
  const add = (from: number, to: number) => {
    for (let k = Math.max(0, Math.floor(from / window)); k < count && k * window < to; k++) {
      const overlap = Math.min(to, (k + 1) * window) - Math.max(from, k * window);
      if (overlap > 0) busy[k] += overlap;
    }
  };
  let freeAt = -Infinity;
  for (const { at, air } of sorted) {
    const k = Math.min(count - 1, Math.floor(at / window + 1e-9));
    if (k >= 0) windows[k].frames++;
    const start = Math.max(at, freeAt);
    freeAt = start + air;
    add(start, freeAt);
  }
  windows.forEach((w, k) => (w.busy = Math.min(1, busy[k] / Math.min(window, end - k * window > 0 ? end - k * window : window))));
  return windows;
}

/** Mean, p95 (interpolated) and maximum of the windows' busy ratios. */
export function channelBusyFigures(windows: readonly BusyWindow[], rate = ITS_G5_DEFAULT_RATE, window = CBR_WINDOW_S): ChannelBusyFigures {
  const values = Float64Array.from(windows, (w) => w.busy).sort();
  const round = (v: number) => +v.toFixed(6);
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  return {
    method: 'on-air-estimate',
    window_s: window,
    rate_bps: rate,
    mean: round(mean),
    p95: round(values.length ? interpolatedQuantile(values, 0.95) : 0),
    max: round(values.length ? values[values.length - 1] : 0),
  };
}
