/**
 * The collective perception service's CPM generation rules (ETSI TS 103 324 V2.1.1, 6.1.2 and
 * 6.1.3 object inclusion for objects of unknown class), without DCC:
 * - checked every T_GenCpmMin (the first control tick at or after it);
 * - an object goes into the CPM when it is new (never included), has moved more than 4 m or
 *   changed its speed by more than 0.5 m/s since it was last included, or was last included
 *   T_GenCpmMax (1 s) ago or more;
 * - a CPM goes out when it has objects to include, and at least every T_GenCpmMax;
 * - the sensor information container goes with the first CPM and then with the first CPM at
 *   least T_AddSensorInformation (1 s) after the last one that carried it.
 */
export interface CpmGenerationParams {
  minInterval: number; // T_GenCpmMin [s]
  maxInterval: number; // T_GenCpmMax [s]
  positionThreshold: number; // [m]
  speedThreshold: number; // [m/s]
  /** An object included this long ago is included again [s]. */
  objectInterval: number;
  sensorInformationInterval: number; // T_AddSensorInformation [s]
}

export const CPM_GENERATION_DEFAULTS: CpmGenerationParams = {
  minInterval: 0.1,
  maxInterval: 1,
  positionThreshold: 4,
  speedThreshold: 0.5,
  objectInterval: 1,
  sensorInformationInterval: 1,
};

export interface ObjectKinematics {
  id: number;
  x: number; // map frame [m]
  y: number;
  speed: number; // [m/s]
}

export type ObjectTrigger = 'new' | 'position' | 'speed' | 'time';

export interface CpmDecision {
  /** The objects to include, by ID, and why each. */
  objects: { id: number; trigger: ObjectTrigger }[];
  sensorInformation: boolean;
}

const EPS = 1e-9;

export class CpmGenerationRules {
  private lastCpmAt?: number;
  private lastSensorInformationAt?: number;
  private readonly included = new Map<number, { at: number; state: ObjectKinematics }>();

  constructor(private readonly params: CpmGenerationParams) {}

  /** One check at `now` with the objects perceived now: a CPM to send, or undefined. A decision is taken as sent. */
  check(now: number, perceived: readonly ObjectKinematics[]): CpmDecision | undefined {
    const p = this.params;
    if (this.lastCpmAt !== undefined && now - this.lastCpmAt < p.minInterval - EPS) return undefined;
    const objects: CpmDecision['objects'] = [];
    for (const o of perceived) {
      const trigger = this.objectTrigger(now, o);
      if (trigger) objects.push({ id: o.id, trigger });
    }
    const due = this.lastCpmAt === undefined || now - this.lastCpmAt >= p.maxInterval - EPS;
    if (!objects.length && !due) return undefined;
    const sensorInformation =
      this.lastSensorInformationAt === undefined || now - this.lastSensorInformationAt >= p.sensorInformationInterval - EPS;
    if (sensorInformation) this.lastSensorInformationAt = now;
    this.lastCpmAt = now;
    const byId = new Map(perceived.map((o) => [o.id, o]));
    for (const { id } of objects) this.included.set(id, { at: now, state: { ...byId.get(id)! } });
    return { objects, sensorInformation };
  }

  /** An object ID that is no longer tracked: a new object with its ID is new again. */
  forget(id: number): void {
    this.included.delete(id);
  }

  private objectTrigger(now: number, o: ObjectKinematics): ObjectTrigger | undefined {
    const p = this.params;
    const last = this.included.get(o.id);
    if (!last) return 'new';
    if (Math.hypot(o.x - last.state.x, o.y - last.state.y) > p.positionThreshold) return 'position';
    if (Math.abs(o.speed - last.state.speed) > p.speedThreshold) return 'speed';
    if (now - last.at >= p.objectInterval - EPS) return 'time';
    return undefined;
  }
}
