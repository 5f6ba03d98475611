import { FRAME_OVERHEAD_BYTES, serialisationTime } from '../channel/frames.js';
import { DIFS_S, frameAirTime, MAC_FRAME_OVERHEAD_BYTES, SLOT_S } from '../channel/radio/wifi-80211p/ofdm-timing.js';
import { distanceForLoss, pathLossModel } from '../channel/radio/wifi-80211p/path-loss.js';
import type { ResolvedNetwork, ResolvedScenario, ResolvedVehicle, WifiNetwork } from '../scenario/resolved.js';

/** A CAM's size on the channel as cavsim encodes it (GeoNetworking, BTP and the CAM itself: 85 to 87 bytes). */
const CAM_BYTES = 87;
/** A CPM with a few objects, as a floor: its size grows with the objects it carries. */
const CPM_BYTES = 120;
/** A CAM goes out when the car has moved this far since the last one (EN 302 637-2's position rule). */
const CAM_POSITION_STEP_M = 4;
/** 802.11p broadcast: DIFS plus the mean backoff of an empty contention window (CWmin 15: 7.5 slots) before each frame. */
const MEAN_ACCESS_S = DIFS_S + 7.5 * SLOT_S;
/** ns-3's CCA busy threshold on 10 MHz when the scenario sets no csThreshold [dBm]: a car this far hears a frame as busy. */
const DEFAULT_BUSY_DBM = -82 + 10 * Math.log10(10 / 20);
/** Share of the air time from which 802.11p broadcast loses many frames to collisions (ETSI's restrictive CBR). */
export const RADIO_BUSY_LIMIT = 0.6;

/** The periodic messages one car offers the channel. */
export interface OfferedMessages {
  car: string;
  /** Messages per second. */
  rate: number;
  /** Bytes a message carries (payload, as the channel sizes it). */
  sizeBytes: number;
  /** Cars each message is addressed to. */
  receivers: number;
}

/** What the apps offer a channel against what it carries: `utilisation` 1 means the queue grows without bound. */
export interface ChannelLoad {
  channel: string;
  utilisation: number;
  /** The figures behind it, in words. */
  figures: string;
  /** How to bring the load under the capacity. */
  fix: string;
}

/** Margin over the channel's own delay after which a frame not yet delivered is queued, not in flight [s]. */
const OVERDUE_MARGIN_S = 0.1;

/**
 * How long after it was sent a frame may still be on its way when the channel is not overloaded [s]:
 * its configured delay (and jitter, or a sidelink's packet delay budget) plus 100 ms. A frame still
 * undelivered when the run ends, sent longer ago than this, is counted as queued (still_queued_at_end).
 */
export function overdueAfter(n: ResolvedNetwork): number {
  if (n.channel === 'csma') return n.delay + OVERDUE_MARGIN_S;
  if (n.channel === 'latency') return n.delay + n.jitter + OVERDUE_MARGIN_S;
  if (n.channel === 'lte-v2x') return n.rri + OVERDUE_MARGIN_S;
  return ((n as { delay?: number }).delay ?? 0) + OVERDUE_MARGIN_S;
}

/** Every car's periodic messages (beacons, CAMs, CPMs); event-driven ones (DENMs, warnings) are left out. */
export function offeredMessages(scenario: ResolvedScenario): OfferedMessages[] {
  const others = Math.max(0, scenario.vehicles.length - 1);
  return scenario.vehicles.flatMap((v) => v.apps.flatMap((app) => appMessages(v, app, others)));
}

function appMessages(v: ResolvedVehicle, app: ResolvedVehicle['apps'][number], others: number): OfferedMessages[] {
  switch (app.type) {
    case 'beacon':
      return [{ car: v.name, rate: app.rate, sizeBytes: app.size, receivers: app.to === '*' ? others : 1 }];
    case 'cam': {
      const byPosition = Math.abs(v.start.speed) / CAM_POSITION_STEP_M;
      const rate = app.rate ?? Math.min(1 / app.minInterval, Math.max(1 / app.maxInterval, byPosition));
      return [{ car: v.name, rate, sizeBytes: CAM_BYTES, receivers: others }];
    }
    case 'cpm':
      return [{ car: v.name, rate: 1 / app.maxInterval, sizeBytes: CPM_BYTES, receivers: others }];
    default:
      return [];
  }
}

/**
 * The channel's load from the apps' periodic messages, or undefined when the channel has no
 * capacity this estimate knows (lte-v2x) or nobody sends. `runtime` matters on the wires: the
 * emulated runtime sends one datagram per receiver, the simulated one frame per message.
 */
export function channelLoad(scenario: ResolvedScenario, runtime: 'sim' | 'docker'): ChannelLoad | undefined {
  const messages = offeredMessages(scenario).filter((m) => m.rate > 0 && m.receivers > 0);
  if (!messages.length) return undefined;
  const n = scenario.network;
  const framesOf = (m: OfferedMessages) => m.rate * (runtime === 'docker' ? m.receivers : 1);
  const frames = messages.reduce((s, m) => s + framesOf(m), 0);
  const perSecond = `${round(frames)} frames/s`;
  if (n.channel === 'csma') {
    // one bus: each frame holds it for its transmission time plus the whole delay
    const sending = messages.reduce((s, m) => s + framesOf(m) * serialisationTime(m.sizeBytes, n.dataRate), 0);
    const busy = sending + frames * n.delay;
    const capacity = frames / busy;
    const delayLimit = Math.max(0, (1 - sending) / frames);
    return {
      channel: 'csma',
      utilisation: busy,
      figures: `the apps offer ${perSecond}; a csma bus at delay ${ms(n.delay)} carries about ${round(capacity)} frames/s (each frame holds the bus for its delay)`,
      fix: `lower network.delay under ${ms(delayLimit)}, send at most ${round(100 / busy)} % as often, or use network.channel: latency (its delay does not limit capacity)`,
    };
  }
  if (n.channel === 'latency') {
    // each sender serialises its own frames at dataRate
    const bySender = new Map<string, number>();
    for (const m of messages) bySender.set(m.car, (bySender.get(m.car) ?? 0) + framesOf(m) * serialisationTime(m.sizeBytes, n.dataRate));
    const [car, busy] = [...bySender].reduce((a, b) => (b[1] > a[1] ? b : a));
    return {
      channel: 'latency',
      utilisation: busy,
      figures: `${car} alone offers ${round(busy * n.dataRate)} bit/s (with ${FRAME_OVERHEAD_BYTES} bytes of headers a frame) at network.dataRate ${round(n.dataRate / 1e6)} Mbit/s`,
      fix: `raise network.dataRate above ${round((busy * n.dataRate) / 1e6)}Mbps, or send less often or smaller`,
    };
  }
  if (n.channel === 'wifi-80211p') return radioLoad(scenario, n, messages);
  return undefined;
}

/** 802.11p: the share of air time the busiest car senses, counting the cars within carrier-sense range of where they start. */
function radioLoad(scenario: ResolvedScenario, n: WifiNetwork, messages: readonly OfferedMessages[]): ChannelLoad {
  const airBySender = new Map<string, number>();
  for (const m of messages) {
    const air = frameAirTime(m.sizeBytes + MAC_FRAME_OVERHEAD_BYTES, n.rate) + MEAN_ACCESS_S;
    airBySender.set(m.car, (airBySender.get(m.car) ?? 0) + m.rate * air);
  }
  const loss = pathLossModel(n.propagation, { frequencyHz: 5.9e9, antennaHeight: n.antennaHeight });
  const range = distanceForLoss(loss, n.txPower - (n.csThreshold ?? DEFAULT_BUSY_DBM));
  const senders = scenario.vehicles.filter((v) => airBySender.has(v.name));
  let worst = { car: '', busy: 0, heard: 0 };
  for (const v of scenario.vehicles) {
    let busy = 0;
    let heard = 0;
    for (const s of senders) {
      if (Math.hypot(s.start.x - v.start.x, s.start.y - v.start.y) > range) continue;
      busy += airBySender.get(s.name)!;
      heard++;
    }
    if (busy > worst.busy) worst = { car: v.name, busy, heard };
  }
  return {
    channel: 'wifi-80211p',
    utilisation: worst.busy / RADIO_BUSY_LIMIT,
    figures: `${worst.car} hears ${worst.heard} sender${worst.heard === 1 ? '' : 's'} within ${round(range)} m (carrier sense) that keep the air busy ${round(worst.busy * 100)} % of the time at ${n.rate / 1e6} Mbit/s; above ${RADIO_BUSY_LIMIT * 100} % broadcast frames collide more and more`,
    fix: 'send less often or smaller, use a faster network.rate, fewer cars in range, or dcc: reactive on the beacon/CAM apps (simulated runtime)',
  };
}

/** The warning `validate`, `plan` and a run's start give when the channel cannot carry what the apps offer (utilisation >= 1). */
export function channelLoadWarnings(scenario: ResolvedScenario, runtime: 'sim' | 'docker'): string[] {
  const load = channelLoad(scenario, runtime);
  if (!load || load.utilisation < 1) return [];
  return [
    `network: the V2V channel will saturate: ${load.figures} (offered load ${round(load.utilisation * 100)} % of capacity); messages will queue and arrive late or never. Fix: ${load.fix}`,
  ];
}

const round = (v: number) => +v.toPrecision(3);
const ms = (s: number) => `${+(s * 1000).toPrecision(3)}ms`;
