import type { ChannelFrame, Delivery } from '../../../src/channel/frames.js';
import { LteV2xChannel, NrV2xChannel } from '../../../src/channel/radio/sidelink/lte-v2x-channel.js';
import type { SidelinkChannel } from '../../../src/channel/radio/sidelink/sidelink-channel.js';
import { LTE_V2X_DEFAULTS, NR_V2X_DEFAULTS } from '../../../src/scenario/resolve-sidelink.js';
import type { LteV2xNetwork, NrV2xNetwork } from '../../../src/scenario/resolved.js';
import { createRandom } from '../../../src/util/random.js';
import type { FleetOutcome } from './beaconing-fleet.js';

/** lte-v2x with its defaults (the published highway configuration), on a road without walls. */
export const SIDELINK_NETWORK: LteV2xNetwork = { channel: 'lte-v2x', ...LTE_V2X_DEFAULTS, obstacles: 'none' };
/** nr-v2x with its defaults, on a road without walls. */
export const NR_SIDELINK_NETWORK: NrV2xNetwork = { channel: 'nr-v2x', ...NR_V2X_DEFAULTS, obstacles: 'none' };

export interface SidelinkFleet {
  network: LteV2xNetwork | NrV2xNetwork;
  /** Cars per km on one line, and the road's length [m]. */
  densityVehPerKm: number;
  roadM: number;
  rateHz: number;
  sizeBytes: number;
  durationS: number;
  /** Outcomes before this are left out: the reservations settle in the first second [s]. */
  warmupS: number;
  seed: number;
  /** Cars drive this fast, all the same way (m/s); 0 parks them. */
  speed?: number;
  /** Aperiodic, variable-size traffic: each car's next packet after `interval` [s], of `bytes` (default: every 1 / rateHz, sizeBytes). */
  traffic?: (draw: () => number) => { interval: number; bytes: number };
}

/** A line of cars sending periodic packets through the builtin lte-v2x engine alone; outcomes of the middle third's packets. */
export function runSidelinkFleet(f: SidelinkFleet): { outcomes: FleetOutcome[]; busyRatios: number[]; channel: SidelinkChannel<number> } {
  const n = Math.round((f.densityVehPerKm * f.roadM) / 1000);
  const spacing = f.roadM / n;
  const speed = f.speed ?? 0;
  let now = 0;
  const positions = Array.from({ length: n }, (_, i) => ({ x: i * spacing, y: 0 }));
  const moved = () => positions.map((p) => ({ x: (p.x + speed * now) % (f.roadM + spacing), y: p.y }));
  const names = positions.map((_, i) => `car${i}`);
  const where = { names, positions: speed ? moved : () => positions, seed: f.seed };
  const channel =
    f.network.channel === 'lte-v2x'
      ? new LteV2xChannel<number>({ network: f.network, ...where })
      : new NrV2xChannel<number>({ network: f.network, ...where });
  const phase = createRandom(f.seed ^ 0x5bd1e995);
  const period = 1 / f.rateHz;
  const traffic = f.traffic ?? (() => ({ interval: period, bytes: f.sizeBytes }));
  const sends: { at: number; from: number; bytes: number }[] = [];
  for (let i = 0; i < n; i++) {
    let t = phase() * period;
    while (t < f.durationS) {
      const next = traffic(phase);
      sends.push({ at: t, from: i, bytes: next.bytes });
      t += next.interval;
    }
  }
  sends.sort((a, b) => a.at - b.at);
  const measured = (i: number) => i >= n / 3 && i < (2 * n) / 3;
  const outcomes: FleetOutcome[] = [];
  const busyRatios: number[] = [];
  const sentAt = new Map<number, number>();
  const take = (ds: Delivery<number>[]) => {
    for (const d of ds) {
      const from = d.payload;
      const to = Number(d.to.slice(3));
      if (measured(from) && (sentAt.get(from) ?? 0) >= f.warmupS) {
        const current = speed ? moved() : positions;
        outcomes.push({ distance: Math.abs(current[from].x - current[to].x), ...(d.lost ? { lost: d.lost } : {}) });
      }
    }
  };
  const everyoneBut = names.map((_, i) => names.filter((__, j) => j !== i));
  const step = 0.01;
  let next = 0;
  for (let t = 0; t <= f.durationS + 1e-9; t += step) {
    now = t;
    while (next < sends.length && sends[next].at < t) {
      const s = sends[next++];
      const frame: ChannelFrame<number> = {
        payload: s.from,
        from: names[s.from],
        to: everyoneBut[s.from],
        broadcast: true,
        sizeBytes: s.bytes,
      };
      sentAt.set(s.from, s.at);
      channel.send(frame, s.at);
    }
    take(channel.deliverDue(t));
    for (const b of channel.takeChannelBusy(t)) if (b.start >= f.warmupS && measured(Number(b.car.slice(3)))) busyRatios.push(b.busyRatio);
  }
  return { outcomes, busyRatios, channel };
}
