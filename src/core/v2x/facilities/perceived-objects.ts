import type { Odometry, V2VMessage } from '../../control/vehicle-context.js';
import type { BodySize } from '../../physics/ttc.js';
import { toMapFrame } from '../../sensing/scan-objects.js';
import type { Cpm } from '../codec/cpm-pdu.js';
import { type GeoReference, toMapXY, yawOfHeading } from '../networking/geo-reference.js';
import { cpmOf } from './cp-service.js';
import { projectedState } from './projected-state.js';
import { generationTime } from './vehicle-state.js';

/** An object another car perceived, on the map. */
export interface PerceivedObjectState {
  objectId: number;
  /** Its state at its time of measurement: position, and heading and speed of its velocity over the ground. */
  state: Odometry;
  /** Its planar dimension [m] (0 when not given). */
  size: number;
  receivedAt: number;
}

/**
 * The objects of a CPM on the map: the sender's reference position and heading place each
 * object's distances, and its speed and heading turn the relative speeds into velocities over
 * the ground. The time is the generation time (at or before `receivedAt`) plus the object's
 * time of measurement.
 */
export function perceivedObjectsOf(cpm: Cpm, ref: GeoReference, receivedAt: number): PerceivedObjectState[] {
  const v = cpm.originatingVehicle;
  if (!v || v.headingValue > 3600 || v.speedValue === 16383) return [];
  const origin = toMapXY(ref, cpm.referencePosition.latitude / 1e7, cpm.referencePosition.longitude / 1e7);
  const yaw = yawOfHeading(v.headingValue / 10);
  const speed = (v.speedValue / 100) * (v.driveDirection === 1 ? -1 : 1);
  const t0 = generationTime(cpm.generationDeltaTime, receivedAt);
  return (cpm.objects ?? []).map((o) => {
    const p = toMapFrame({ ...origin, yaw }, { x: o.xDistance.value / 100, y: o.yDistance.value / 100 });
    const rel = toMapFrame({ x: 0, y: 0, yaw }, { x: o.xSpeed.value / 100, y: o.ySpeed.value / 100 });
    const vx = rel.x + speed * Math.cos(yaw);
    const vy = rel.y + speed * Math.sin(yaw);
    const ground = Math.hypot(vx, vy);
    return {
      objectId: o.objectId,
      state: {
        t: t0 + o.timeOfMeasurement / 1000,
        x: p.x,
        y: p.y,
        yaw: ground > 1e-6 ? Math.atan2(vy, vx) : 0,
        v: ground,
        steer: 0,
        yawRate: 0,
      },
      size: o.planarObjectDimension1 ? o.planarObjectDimension1.value / 10 : 0,
      receivedAt,
    };
  });
}

/**
 * What a car knows of the objects other cars perceive, from their CPMs: the latest state of each
 * object by sender and objectID, kept only if newer than what is known.
 */
export class PerceivedObjectTable {
  private readonly entries = new Map<string, PerceivedObjectState & { from: string }>();

  constructor(private readonly geoReference: GeoReference) {}

  /** Takes a received message; true when it was a CPM that updated the table. */
  update(msg: V2VMessage, receivedAt: number): boolean {
    const cpm = cpmOf(msg);
    if (!cpm) return false;
    let changed = false;
    for (const o of perceivedObjectsOf(cpm, this.geoReference, receivedAt)) {
      const key = `${msg.from}/object${o.objectId}`;
      const known = this.entries.get(key);
      if (known && known.state.t >= o.state.t) continue;
      this.entries.set(key, { ...o, from: msg.from });
      changed = true;
    }
    return changed;
  }

  /** Objects by `sender/objectN`. */
  view(): ReadonlyMap<string, PerceivedObjectState & { from: string }> {
    return this.entries;
  }
}

/** A perceived object's footprint: a square of its planar dimension, at least this [m]. */
const MIN_OBJECT_SIZE = 0.3;
/** A perceived object this close to the car's own footprint (beyond its half diagonal) is the car itself [m]. */
const SELF_MARGIN = 0.5;

/**
 * The objects other cars perceived (their CPMs), carried forward to now at their velocity, each
 * with its footprint, leaving out the car itself (what others see of it).
 */
export function perceivedObstacles(
  table: PerceivedObjectTable,
  own: Odometry,
  ownSize: BodySize,
  now: number,
  maxAge: number,
): [string, Odometry, BodySize][] {
  const out: [string, Odometry, BodySize][] = [];
  for (const [key, o] of table.view()) {
    if (now - o.state.t > maxAge) continue;
    const at = projectedState({ state: o.state, acceleration: 0, receivedAt: o.receivedAt }, now);
    if (Math.hypot(at.x - own.x, at.y - own.y) <= Math.hypot(ownSize.length, ownSize.width) / 2 + SELF_MARGIN) continue;
    // an object of unknown class is taken for a car of this car's size, or its measured size if larger
    const side = Math.max(MIN_OBJECT_SIZE, o.size);
    out.push([key, at, { length: Math.max(side, ownSize.length), width: Math.max(side, ownSize.width) }]);
  }
  return out;
}
