import type { ChannelFrame, Delivery, V2VChannel } from '../../../src/channel/frames.js';
import { createRandom } from '../../../src/util/random.js';

/** Cars on a straight line beaconing through any V2V channel: the same frames at the same times for every engine. */
export interface FleetSpec {
  /** Cars per km, one lane, and the road's length [m]. */
  densityVehPerKm: number;
  roadM: number;
  /** 0 for parked cars; moving cars keep their spacing. */
  speed: number;
  beaconRateHz: number;
  sizeBytes: number;
  durationS: number;
  seed: number;
}

export interface FleetMotion {
  names: string[];
  /** Positions and velocities at virtual time `t`, in car order. */
  at(t: number): { x: number; y: number; vx: number; vy: number }[];
}

export function fleetMotion(f: FleetSpec): FleetMotion {
  const n = Math.round((f.densityVehPerKm * f.roadM) / 1000);
  const spacing = f.roadM / n;
  return {
    names: Array.from({ length: n }, (_, i) => `car${i}`),
    at: (t) => Array.from({ length: n }, (_, i) => ({ x: i * spacing + f.speed * t, y: 0, vx: f.speed, vy: 0 })),
  };
}

export interface FleetOutcome {
  distance: number;
  lost?: string;
}

/**
 * Runs the fleet through `channel` in 10 ms steps; returns the outcomes of the frames sent by the cars
 * of the middle third (so that every distance up to a third of the road has cars on both sides) and
 * their channel busy ratios.
 */
export async function runFleetOn(
  channel: V2VChannel<number>,
  f: FleetSpec,
  motion: FleetMotion,
  clock: { now: number },
): Promise<{ outcomes: FleetOutcome[]; busyRatios: number[] }> {
  const n = motion.names.length;
  const phase = createRandom(f.seed ^ 0x5bd1e995);
  const period = 1 / f.beaconRateHz;
  const sends: { at: number; from: number }[] = [];
  for (let i = 0; i < n; i++) for (let t = phase() * period; t < f.durationS; t += period) sends.push({ at: t, from: i });
  sends.sort((a, b) => a.at - b.at);
  const measured = (i: number) => i >= n / 3 && i < (2 * n) / 3;
  const sentFrom = new Map<number, number>();
  const outcomes: FleetOutcome[] = [];
  const busyRatios: number[] = [];
  const take = (ds: Delivery<number>[]) => {
    for (const d of ds) {
      const from = d.payload % n;
      if (!measured(from)) continue;
      const sentAt = sentFrom.get(d.payload)!;
      const p = motion.at(sentAt);
      const to = Number(d.to.slice(3));
      outcomes.push({ distance: Math.abs(p[from].x - p[to].x), ...(d.lost ? { lost: d.lost } : {}) });
    }
  };
  const others = motion.names.map((_, i) => motion.names.filter((_, j) => j !== i));
  const steps = Math.round(f.durationS / 0.01);
  let next = 0;
  let frameId = 0;
  for (let k = 0; k <= steps; k++) {
    const t = k * 0.01;
    clock.now = t;
    if (channel.advanceTo) await channel.advanceTo(t);
    take(channel.deliverDue(t));
    for (const b of channel.takeChannelBusy?.(t) ?? []) if (measured(Number(b.car.slice(3)))) busyRatios.push(b.busyRatio);
    while (next < sends.length && sends[next].at < t + 0.01) {
      const s = sends[next++];
      const id = frameId++ * n + s.from;
      sentFrom.set(id, s.at);
      const frame: ChannelFrame<number> = {
        payload: id,
        from: motion.names[s.from],
        to: others[s.from],
        broadcast: true,
        sizeBytes: f.sizeBytes,
      };
      channel.send(frame, s.at);
    }
  }
  if (channel.settle) await channel.settle(steps * 0.01);
  take(channel.deliverDue(steps * 0.01));
  await channel.close?.();
  return { outcomes, busyRatios };
}

/** Delivery ratio and each loss reason's share of the outcomes in [from, from + width). */
export function binShares(
  outcomes: readonly FleetOutcome[],
  from: number,
  width: number,
): { count: number; shares: Record<string, number> } {
  const near = outcomes.filter((o) => o.distance >= from && o.distance < from + width);
  const shares: Record<string, number> = {};
  for (const o of near) shares[o.lost ?? 'delivered'] = (shares[o.lost ?? 'delivered'] ?? 0) + 1 / near.length;
  return { count: near.length, shares };
}
