import type { Odometry, V2VMessage, VehicleContext } from '../../control/vehicle-context.js';
import {
  type CauseCode,
  type Denm,
  decodeDenm,
  encodeDenm,
  relevanceDistanceOf,
  TERMINATION,
  TRAFFIC_DIRECTION,
} from '../codec/denm-pdu.js';
import { type GeoReference, toLatLon, toMapXY, yawOfHeading } from '../networking/geo-reference.js';
import { BTP_PORT_DENM, type CircularArea, decodeBroadcast, encodeBroadcast } from '../networking/geonetworking.js';
import { headingUnits, itsMilliseconds, latitudeUnits, positionVectorOf, type StationFacts, speedUnits } from './vehicle-state.js';

/**
 * The DEN basic service of EN 302 637-3 V1.3.1 on a car, both ends.
 *
 * Originating (clause 8.1): the application triggers a new event (AppDENM_trigger: a new actionID,
 * detectionTime and referenceTime the trigger's time), updates it (AppDENM_update: same actionID,
 * new detectionTime, referenceTime and event position) and ends it (AppDENM_termination: same
 * actionID, termination isCancellation). Each of these DENMs is repeated unchanged every
 * repetition interval until its repetition duration is over or the event's validity
 * (detectionTime + validityDuration) ends, whichever is first; a newer one replaces it. Each copy
 * goes out at the car's first control tick at or after its time, in a new GeoNetworking packet
 * (the sender's current position vector, the next GN sequence number) over BTP-B port 2002:
 * GeoBroadcast to a circle of the relevance distance around the event, or topologically-scoped
 * broadcast.
 *
 * Receiving (clause 8.2): GN delivers a GeoBroadcast only inside its area; an expired DENM is
 * dropped; the receiving table, by actionID, tells a new event from an update, a repetition (the
 * same referenceTime, not passed on again), an outdated copy and a cancellation or negation.
 */
export const DENM_MESSAGE = 'denm';

export interface DenParams {
  cause: CauseCode;
  /** validityDuration [s]. */
  validity: number;
  /** Repetition interval [s], also sent as transmissionInterval. */
  repetitionInterval: number;
  /** Repetition duration [s] of each new, updated or cancelling DENM. */
  repetitionDuration: number;
  /** Relevance distance [m]: relevanceDistance's class, and the GeoBroadcast circle's radius. */
  relevanceDistance: number;
  trafficDirection: keyof typeof TRAFFIC_DIRECTION;
  scope: 'geo-broadcast' | 'topological';
  /** GN maximum hop limit. */
  hops: number;
  informationQuality: number;
}

/** GN traffic class of DENMs: DP0, the highest priority (the CA service's CAMs use DP2). */
const DENM_TRAFFIC_CLASS = 0;
/** The largest GN packet lifetime (itsGnMaxPacketLifetime, EN 302 636-4-1 annex H) [s]. */
const MAX_PACKET_LIFETIME_S = 600;
const EPS = 1e-9;

export type DenmKind = 'new' | 'update' | 'cancellation';

/** The body of a `denm` message: the DENM's fields (for JSON readers and runtimes without the packet). */
export interface DenmBody extends Record<string, unknown> {
  kind: DenmKind;
  denm: Denm;
  area?: CircularArea;
}

interface Active {
  denm: Denm;
  kind: DenmKind;
  /** When its repetitions end [s]: the repetition duration or the validity, whichever is first. */
  repeatUntil: number;
  nextAt: number;
}

export class DenOriginator {
  private sequenceNumber = 0;
  private gnSequenceNumber = 0;
  private active?: Active;
  private current?: { denm: Denm; detectedAt: number };

  constructor(
    private readonly station: StationFacts,
    private readonly ref: GeoReference,
    private readonly params: DenParams,
  ) {}

  /** Whether an event is on (triggered, not terminated). */
  get eventOn(): boolean {
    return this.current !== undefined;
  }

  /** AppDENM_trigger: a new event at the car's state `own`, detected at `now`. Returns its actionID. */
  trigger(now: number, own: Odometry): Denm {
    const actionId = { originatingStationId: this.station.stationId, sequenceNumber: this.sequenceNumber };
    this.sequenceNumber = (this.sequenceNumber + 1) % 65536;
    const denm = this.build(actionId, now, now, own);
    this.current = { denm, detectedAt: now };
    this.start(denm, 'new', now);
    return denm;
  }

  /** AppDENM_update: the same event, detected again now at `own`. */
  update(now: number, own: Odometry): Denm | undefined {
    if (!this.current) return undefined;
    const denm = this.build(this.current.denm.management.actionId, now, now, own);
    this.current = { denm, detectedAt: now };
    this.start(denm, 'update', now);
    return denm;
  }

  /** AppDENM_termination: the originator cancels its event (termination isCancellation). */
  terminate(now: number, own: Odometry): Denm | undefined {
    if (!this.current) return undefined;
    const denm = this.build(this.current.denm.management.actionId, now, now, own);
    denm.management.termination = TERMINATION.isCancellation;
    this.current = undefined;
    this.start(denm, 'cancellation', now);
    return denm;
  }

  /** The event is over without a cancellation: its DENM runs out (repetitions, then validity). */
  forget(): void {
    this.current = undefined;
  }

  /** Sends the copy due at `now`, if any. */
  tick(ctx: VehicleContext, now: number): void {
    const a = this.active;
    const own = ctx.own();
    if (!a || !own || now + EPS < a.nextAt) return;
    if (now > a.repeatUntil + EPS) {
      this.active = undefined;
      return;
    }
    const steps = Math.floor((now - a.nextAt) / this.params.repetitionInterval + EPS) + 1;
    a.nextAt += steps * this.params.repetitionInterval;
    const area = this.params.scope === 'geo-broadcast' ? this.areaOf(a.denm) : undefined;
    const packet = encodeBroadcast({
      source: positionVectorOf({ ...own, t: now }, this.station, this.ref),
      sequenceNumber: this.gnSequenceNumber,
      btpPort: BTP_PORT_DENM,
      trafficClass: DENM_TRAFFIC_CLASS,
      lifetimeMs: Math.min(a.denm.management.validityDuration, MAX_PACKET_LIFETIME_S) * 1000 || 1000,
      hopLimit: this.params.hops,
      ...(area ? { area } : {}),
      payload: encodeDenm(a.denm),
    });
    this.gnSequenceNumber = (this.gnSequenceNumber + 1) % 65536;
    const body: DenmBody = { kind: a.kind, denm: a.denm, ...(area ? { area } : {}) };
    ctx.send('*', DENM_MESSAGE, body, { packet });
  }

  private start(denm: Denm, kind: DenmKind, now: number): void {
    const validUntil = denm.management.detectionTime / 1000 + denm.management.validityDuration;
    this.active = { denm, kind, nextAt: now, repeatUntil: Math.min(now + this.params.repetitionDuration, validUntil) };
  }

  private areaOf(denm: Denm): CircularArea {
    const p = denm.management.eventPosition;
    return { latitude: p.latitude, longitude: p.longitude, radius: Math.min(0xffff, Math.round(this.params.relevanceDistance)) };
  }

  private build(actionId: Denm['management']['actionId'], detectedAt: number, referenceAt: number, own: Odometry): Denm {
    const p = this.params;
    const { lat, lon } = toLatLon(this.ref, own.x, own.y);
    const heading = headingUnits(own.yaw);
    return {
      stationId: this.station.stationId,
      management: {
        actionId: { ...actionId },
        detectionTime: itsMilliseconds(detectedAt),
        referenceTime: itsMilliseconds(referenceAt),
        eventPosition: {
          latitude: latitudeUnits(lat),
          longitude: latitudeUnits(lon),
          semiMajorConfidence: 1,
          semiMinorConfidence: 1,
          semiMajorOrientation: heading,
          altitudeValue: 0,
          altitudeConfidence: 0,
        },
        relevanceDistance: relevanceDistanceOf(p.relevanceDistance),
        relevanceTrafficDirection: TRAFFIC_DIRECTION[p.trafficDirection],
        validityDuration: p.validity,
        transmissionInterval: Math.round(p.repetitionInterval * 1000),
        stationType: this.station.stationType,
      },
      situation: { informationQuality: p.informationQuality, eventType: { ...p.cause } },
      location: {
        eventSpeed: { speedValue: speedUnits(own.v), speedConfidence: 1 },
        eventPositionHeading: { headingValue: heading, headingConfidence: 1 },
        traces: [[]],
      },
    };
  }
}

/** What the receiving DEN basic service made of a message. */
export interface DenReception {
  /** new, update, cancellation and negation reach the application; the others are dropped. */
  kind: 'new' | 'update' | 'cancellation' | 'negation' | 'repetition' | 'outdated' | 'expired' | 'outside-area' | 'unknown-termination';
  denm: Denm;
  from: string;
}

/** A DENM from a message: decoded from its GN packet when it has one, else from its JSON body. */
export function denmOf(msg: V2VMessage): { denm: Denm; area?: CircularArea } | undefined {
  if (msg.type !== DENM_MESSAGE) return undefined;
  try {
    if (msg.packet instanceof Uint8Array) {
      const packet = decodeBroadcast(msg.packet);
      if (packet.btpPort !== BTP_PORT_DENM) return undefined;
      return { denm: decodeDenm(packet.payload), ...(packet.area ? { area: packet.area } : {}) };
    }
    const body = msg.body as Partial<DenmBody>;
    if (!body.denm || typeof body.denm.management?.actionId?.originatingStationId !== 'number') return undefined;
    // runtimes that carry only the JSON: the DENM it describes, put through the codec to check it
    return { denm: decodeDenm(encodeDenm(body.denm)), ...(body.area ? { area: body.area } : {}) };
  } catch {
    return undefined;
  }
}

/** Whether a map point is inside a GeoBroadcast circle (EN 302 931's F(x, y) >= 0 for a circle). */
export function insideArea(area: CircularArea, ref: GeoReference, x: number, y: number): boolean {
  const centre = toMapXY(ref, area.latitude / 1e7, area.longitude / 1e7);
  return Math.hypot(x - centre.x, y - centre.y) <= area.radius;
}

/** The event's position on the map and the direction it faced (yaw) and moved at. */
export function eventPlace(denm: Denm, ref: GeoReference): { x: number; y: number; yaw?: number } {
  const p = denm.management.eventPosition;
  const { x, y } = toMapXY(ref, p.latitude / 1e7, p.longitude / 1e7);
  const heading = denm.location?.eventPositionHeading?.headingValue;
  return heading === undefined || heading > 3600 ? { x, y } : { x, y, yaw: yawOfHeading(heading / 10) };
}

/**
 * Whether an event concerns a car at `own` by its relevanceTrafficDirection: upstream traffic is
 * behind the event (as it faced), downstream ahead of it; all and opposite traffic, or an event
 * without a heading, concern every car.
 */
export function concerns(denm: Denm, ref: GeoReference, own: Pick<Odometry, 'x' | 'y'>): boolean {
  const direction = denm.management.relevanceTrafficDirection;
  const place = eventPlace(denm, ref);
  if (place.yaw === undefined || (direction !== TRAFFIC_DIRECTION.upstreamTraffic && direction !== TRAFFIC_DIRECTION.downstreamTraffic))
    return true;
  const along = (own.x - place.x) * Math.cos(place.yaw) + (own.y - place.y) * Math.sin(place.yaw);
  return direction === TRAFFIC_DIRECTION.upstreamTraffic ? along <= 0 : along >= 0;
}

/** The receiving DEN basic service's table: the latest DENM of each event, by actionID. */
export class DenReceiver {
  private readonly table = new Map<string, { referenceTime: number; detectionTime: number; terminated: boolean }>();

  constructor(private readonly ref: GeoReference) {}

  /** Takes a received message at `now` by a car at `own`; undefined when it is no DENM. */
  receive(msg: V2VMessage, now: number, own: Pick<Odometry, 'x' | 'y'> | undefined): DenReception | undefined {
    const got = denmOf(msg);
    if (!got) return undefined;
    const { denm, area } = got;
    const from = msg.from;
    if (area && own && !insideArea(area, this.ref, own.x, own.y)) return { kind: 'outside-area', denm, from };
    const m = denm.management;
    if (m.detectionTime + m.validityDuration * 1000 < itsMilliseconds(now)) return { kind: 'expired', denm, from };
    const key = `${m.actionId.originatingStationId}/${m.actionId.sequenceNumber}`;
    const known = this.table.get(key);
    const entry = { referenceTime: m.referenceTime, detectionTime: m.detectionTime, terminated: m.termination !== undefined };
    if (!known) {
      if (m.termination !== undefined) return { kind: 'unknown-termination', denm, from };
      this.table.set(key, entry);
      return { kind: 'new', denm, from };
    }
    if (
      m.referenceTime < known.referenceTime ||
      (m.referenceTime === known.referenceTime && known.terminated && m.termination === undefined)
    )
      return { kind: 'outdated', denm, from };
    if (
      m.referenceTime === known.referenceTime &&
      m.detectionTime === known.detectionTime &&
      (m.termination !== undefined) === known.terminated
    )
      return { kind: 'repetition', denm, from };
    this.table.set(key, entry);
    if (m.termination === TERMINATION.isCancellation) return { kind: 'cancellation', denm, from };
    if (m.termination === TERMINATION.isNegation) return { kind: 'negation', denm, from };
    return { kind: 'update', denm, from };
  }
}
