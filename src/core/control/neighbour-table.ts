import { BEACON_MESSAGE } from './beacon.js';
import type { Neighbour, Odometry, V2VMessage } from './vehicle-context.js';

const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The state a beacon carries (src/core/control/beacon.ts), or undefined for anything else. */
export function beaconState(msg: V2VMessage): { state: Odometry; acceleration: number } | undefined {
  if (msg.type !== BEACON_MESSAGE) return undefined;
  const { x, y, yaw, v, a, yawRate, stamp } = msg.body;
  const valid = isFiniteNumber(x) && isFiniteNumber(y) && isFiniteNumber(yaw) && isFiniteNumber(v) && isFiniteNumber(a) && isFiniteNumber(yawRate) && isFiniteNumber(stamp);
  if (!valid) return undefined;
  return { state: { t: stamp, x, y, yaw, v, steer: 0, yawRate }, acceleration: a };
}

/**
 * What a car knows of the others through V2V: the latest beaconed state of each sender, kept only
 * if newer than what is known (beacons may arrive out of order on a jittery channel).
 */
export class NeighbourTable {
  private readonly entries = new Map<string, Neighbour>();

  /** Takes a received message; true when it was a beacon that updated the table. */
  update(msg: V2VMessage, receivedAt: number): boolean {
    const beacon = beaconState(msg);
    if (!beacon) return false;
    const known = this.entries.get(msg.from);
    if (known && known.state.t >= beacon.state.t) return false;
    this.entries.set(msg.from, { state: beacon.state, acceleration: beacon.acceleration, receivedAt });
    return true;
  }

  view(): ReadonlyMap<string, Neighbour> {
    return this.entries;
  }
}

/** A neighbour's state carried forward to `t` at its beaconed speed and heading (dead reckoning). */
export function projectedState(n: Neighbour, t: number): Odometry {
  const dt = Math.max(0, t - n.state.t);
  const s = n.state;
  return { ...s, t, x: s.x + s.v * Math.cos(s.yaw) * dt, y: s.y + s.v * Math.sin(s.yaw) * dt };
}
