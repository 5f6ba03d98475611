import type { ChannelFrame, Delivery } from '../../../src/channel/frames.js';
import { Wifi80211pChannel } from '../../../src/channel/radio/wifi-80211p/wifi-80211p-channel.js';
import type { WifiNetwork } from '../../../src/scenario/resolved.js';
import { createRandom } from '../../../src/util/random.js';

/** A line of parked cars beaconing through the builtin 802.11p engine alone (no physics, no apps). */
export interface BeaconingFleet {
  network: WifiNetwork;
  /** Cars per km, and the road's length [m]. */
  densityVehPerKm: number;
  roadM: number;
  beaconRateHz: number;
  /** Bytes handed to the channel per beacon (the engine adds UDP/IP, LLC and MAC headers). */
  sizeBytes: number;
  durationS: number;
  seed: number;
}

/** What became of the beacons of the cars in the middle third, at each receiver, with the distance between them. */
export interface FleetOutcome {
  distance: number;
  lost?: string;
}

export function runBeaconingFleet(f: BeaconingFleet): {
  outcomes: FleetOutcome[];
  busyRatios: number[];
  channel: Wifi80211pChannel<number>;
} {
  const n = Math.round((f.densityVehPerKm * f.roadM) / 1000);
  const spacing = f.roadM / n;
  const positions = Array.from({ length: n }, (_, i) => ({ x: i * spacing, y: 0 }));
  const names = positions.map((_, i) => `car${i}`);
  const channel = new Wifi80211pChannel<number>({ network: f.network, names, positions: () => positions, seed: f.seed });
  const phase = createRandom(f.seed ^ 0x5bd1e995);
  const period = 1 / f.beaconRateHz;
  const sends: { at: number; from: number }[] = [];
  for (let i = 0; i < n; i++) {
    for (let t = phase() * period; t < f.durationS; t += period) sends.push({ at: t, from: i });
  }
  sends.sort((a, b) => a.at - b.at);
  const measured = (i: number) => i >= n / 3 && i < (2 * n) / 3;
  const outcomes: FleetOutcome[] = [];
  const busyRatios: number[] = [];
  const take = (ds: Delivery<number>[]) => {
    for (const d of ds) {
      const from = d.payload;
      const to = Number(d.to.slice(3));
      if (measured(from)) outcomes.push({ distance: Math.abs(positions[from].x - positions[to].x), ...(d.lost ? { lost: d.lost } : {}) });
    }
  };
  const step = 0.01;
  let next = 0;
  for (let t = 0; t <= f.durationS + 1e-9; t += step) {
    while (next < sends.length && sends[next].at < t) {
      const s = sends[next++];
      const frame: ChannelFrame<number> = {
        payload: s.from,
        from: names[s.from],
        to: names.filter((_, j) => j !== s.from),
        broadcast: true,
        sizeBytes: f.sizeBytes,
      };
      channel.send(frame, s.at);
    }
    take(channel.deliverDue(t));
    for (const b of channel.takeChannelBusy(t)) if (measured(Number(b.car.slice(3)))) busyRatios.push(b.busyRatio);
  }
  return { outcomes, busyRatios, channel };
}

/** Delivery ratio and each loss reason's share of the outcomes within `halfBin` of `distance`. */
export function sharesAt(
  outcomes: readonly FleetOutcome[],
  distance: number,
  halfBin: number,
): Record<string, number> & { pdr: number; count: number } {
  const near = outcomes.filter((o) => Math.abs(o.distance - distance) <= halfBin);
  const shares: Record<string, number> = {};
  for (const o of near) shares[o.lost ?? 'delivered'] = (shares[o.lost ?? 'delivered'] ?? 0) + 1 / near.length;
  return { ...shares, pdr: shares.delivered ?? 0, count: near.length };
}
