import type { Neighbour, Odometry, V2VMessage } from '../../control/vehicle-context.js';
import { decodeCam } from '../codec/cam-pdu.js';
import { CAM_MESSAGE } from '../facilities/ca-service.js';
import { stateOfCam } from '../facilities/vehicle-state.js';
import type { GeoReference } from '../networking/geo-reference.js';
import { BTP_PORT_CAM, decodeShb } from '../networking/geonetworking.js';
import { BEACON_MESSAGE } from './beacon.js';

const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The state a beacon carries (./beacon.ts), or undefined for anything else. */
export function beaconState(msg: V2VMessage): { state: Odometry; acceleration: number } | undefined {
  if (msg.type !== BEACON_MESSAGE) return undefined;
  const { x, y, yaw, v, a, yawRate, stamp } = msg.body;
  const valid =
    isFiniteNumber(x) &&
    isFiniteNumber(y) &&
    isFiniteNumber(yaw) &&
    isFiniteNumber(v) &&
    isFiniteNumber(a) &&
    isFiniteNumber(yawRate) &&
    isFiniteNumber(stamp);
  if (!valid) return undefined;
  return { state: { t: stamp, x, y, yaw, v, steer: 0, yawRate }, acceleration: a };
}

/**
 * The state a CAM carries, decoded from the message's GN packet (not its JSON body), or undefined
 * for anything else, or for a packet that does not decode. `ref` places it on the map.
 */
export function camState(msg: V2VMessage, ref: GeoReference, receivedAt: number): { state: Odometry; acceleration: number } | undefined {
  if (msg.type !== CAM_MESSAGE || !(msg.packet instanceof Uint8Array)) return undefined;
  try {
    const packet = decodeShb(msg.packet);
    if (packet.btpPort !== BTP_PORT_CAM) return undefined;
    const s = stateOfCam(decodeCam(packet.payload), ref, receivedAt);
    return { state: { t: s.t, x: s.x, y: s.y, yaw: s.yaw, v: s.v, steer: 0, yawRate: s.yawRate }, acceleration: s.acceleration };
  } catch {
    return undefined;
  }
}

/**
 * What a car knows of the others through V2V: the latest state each sender beaconed or sent in a
 * CAM, kept only if newer than what is known (messages may arrive out of order on a jittery channel).
 */
export class NeighbourTable {
  private readonly entries = new Map<string, Neighbour>();

  constructor(private readonly geoReference: GeoReference) {}

  /** Takes a received message; true when it was a beacon or CAM that updated the table. */
  update(msg: V2VMessage, receivedAt: number): boolean {
    const beacon = beaconState(msg) ?? camState(msg, this.geoReference, receivedAt);
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
