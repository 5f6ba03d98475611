import type { LaserScan, Odometry, V2VMessage, VehicleApp } from '../../control/vehicle-context.js';
import type { OccupancyGrid } from '../../map/occupancy-grid.js';
import {
  type ClusterOptions,
  clusterScan,
  ObjectTracker,
  type ScanLike,
  type TrackedObject,
  toBodyFrame,
  toMapFrame,
} from '../../sensing/scan-objects.js';
import { mapWallReturns } from '../../sensing/wall-returns.js';
import {
  type Cpm,
  DYNAMIC_STATUS,
  decodeCpm,
  encodeCpm,
  type PerceivedObject,
  SENSOR_TYPE,
  type SensorInformation,
} from '../codec/cpm-pdu.js';
import { type GeoReference, toLatLon } from '../networking/geo-reference.js';
import { BTP_PORT_CPM, decodeShb, encodeShb } from '../networking/geonetworking.js';
import { type CpmGenerationParams, CpmGenerationRules } from './cpm-generation.js';
import { accelerationTracker, periodicChecks } from './sending-schedule.js';
import { headingUnits, itsMilliseconds, latitudeUnits, positionVectorOf, type StationFacts, speedUnits } from './vehicle-state.js';

export const CPM_MESSAGE = 'cpm';
/** GN traffic class of CPMs: DP2, as CAMs. */
const CPM_TRAFFIC_CLASS = 2;
/** The lidar's sensorID in the sensor information container and the objects' sensorIDList. */
export const LIDAR_SENSOR_ID = 1;
/** At most this many objects in one CPM (no segmentation): the nearest. */
const MAX_OBJECTS = 128;
/** Confidences the simulator's lidar earns: about its noise and the velocity estimate's [0.01 m, 0.01 m/s, 0.1 m]. */
const DISTANCE_CONFIDENCE = 5;
const SPEED_CONFIDENCE = 20;
const DIMENSION_CONFIDENCE = 10;
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

export interface CpmOptions extends CpmGenerationParams, ClusterOptions {
  associationDistance: number;
}

/** The sensor information container of a lidar with this scan: its range and horizontal field of view. */
export function lidarSensorInformation(
  scan: Pick<ScanLike, 'angleMin' | 'angleIncrement' | 'rangeMax'> & { beams: number },
): SensorInformation {
  const angleUnits = (rad: number) => ((Math.round((rad * 1800) / Math.PI) % 3600) + 3600) % 3600;
  const angleMax = scan.angleMin + (scan.beams - 1) * scan.angleIncrement;
  return {
    sensorId: LIDAR_SENSOR_ID,
    type: SENSOR_TYPE.lidar,
    vehicleSensor: {
      xSensorOffset: 0,
      ySensorOffset: 0,
      properties: [
        {
          range: clamp(Math.round(scan.rangeMax * 10), 0, 10000),
          horizontalOpeningAngleStart: angleUnits(scan.angleMin),
          horizontalOpeningAngleEnd: angleUnits(angleMax),
        },
      ],
    },
  };
}

/** A tracked object as the CPM's perceived object, relative to the sender at `own` (generation time `t`). */
export function perceivedObjectOf(o: TrackedObject, own: Odometry, t: number): PerceivedObject {
  const at = toBodyFrame(own.yaw, { x: o.x - own.x, y: o.y - own.y });
  const relative = toBodyFrame(own.yaw, { x: o.vx - own.v * Math.cos(own.yaw), y: o.vy - own.v * Math.sin(own.yaw) });
  const moving = Math.hypot(o.vx, o.vy) > 0.5;
  return {
    objectId: o.id,
    sensorIds: [LIDAR_SENSOR_ID],
    timeOfMeasurement: clamp(itsMilliseconds(o.lastSeen) - itsMilliseconds(t), -1500, 1500),
    objectAge: clamp(itsMilliseconds(o.lastSeen) - itsMilliseconds(o.firstSeen), 0, 1500),
    objectConfidence: 0,
    xDistance: { value: clamp(Math.round(at.x * 100), -132768, 132767), confidence: DISTANCE_CONFIDENCE },
    yDistance: { value: clamp(Math.round(at.y * 100), -132768, 132767), confidence: DISTANCE_CONFIDENCE },
    xSpeed: { value: clamp(Math.round(relative.x * 100), -16382, 16382), confidence: SPEED_CONFIDENCE },
    ySpeed: { value: clamp(Math.round(relative.y * 100), -16382, 16382), confidence: SPEED_CONFIDENCE },
    planarObjectDimension1: { value: clamp(Math.round(o.extent * 10), 0, 1023), confidence: DIMENSION_CONFIDENCE },
    dynamicStatus: moving ? DYNAMIC_STATUS.dynamic : o.hasMoved ? DYNAMIC_STATUS.hasBeenDynamic : DYNAMIC_STATUS.static,
  };
}

/** The map the lidar sees, and how far beyond a return its wall may be (`wallMargin`) [m]. */
export interface CpmMap {
  grid: OccupancyGrid;
  margin: number;
}

/**
 * The collective perception service on a car: at every T_GenCpmMin (the first control tick at or
 * after it; each car's checks start at their own offset, fixed by its name) it clusters the
 * latest lidar scan into objects (scan-objects.ts), leaving out the returns the map explains (its
 * walls are never objects: wall-returns.ts), tracks them on the map, applies the
 * generation rules (cpm-generation.ts) and broadcasts a CPM in GeoNetworking single-hop broadcast
 * over BTP-B port 2009: its station data, the lidar's field of view when due, and the objects due.
 */
export function createCpm(name: string, opts: CpmOptions, station: StationFacts, ref: GeoReference, map?: CpmMap): VehicleApp {
  const rules = new CpmGenerationRules(opts);
  const tracker = new ObjectTracker({
    associationDistance: opts.associationDistance,
    forgetAfter: Math.max(opts.minInterval * 3, 0.3),
    movingSpeed: 0.5,
    velocityGain: 0.5,
  });
  const checkDue = periodicChecks(`cpm-${name}`, opts.minInterval);
  let lastScanT: number | undefined;
  let seen: TrackedObject[] = [];
  const accelerationOf = accelerationTracker();
  const everIncluded = new Set<number>();
  return {
    onTick(ctx) {
      const own = ctx.own();
      if (!own) return;
      const acceleration = accelerationOf(own);
      const now = ctx.now();
      if (!checkDue(now)) return;
      const scan: LaserScan | undefined = ctx.scan();
      if (!scan) return;
      if (scan.t !== lastScanT) {
        lastScanT = scan.t;
        const walls = map && mapWallReturns(map.grid, own, map.margin);
        const detections = clusterScan(scan, opts, walls).map((c) => ({ ...toMapFrame(own, c), extent: c.extent }));
        seen = tracker.update(scan.t, detections);
        for (const id of everIncluded) {
          if (tracker.has(id)) continue;
          rules.forget(id);
          everIncluded.delete(id);
        }
      }
      const decision = rules.check(
        now,
        seen.map((o) => ({ id: o.id, x: o.x, y: o.y, speed: Math.hypot(o.vx, o.vy) })),
      );
      if (!decision) return;
      const due = new Set(decision.objects.map((o) => o.id));
      const included = seen
        .filter((o) => due.has(o.id))
        .sort((a, b) => Math.hypot(a.x - own.x, a.y - own.y) - Math.hypot(b.x - own.x, b.y - own.y) || a.id - b.id)
        .slice(0, MAX_OBJECTS);
      for (const o of included) everIncluded.add(o.id);
      const { lat, lon } = toLatLon(ref, own.x, own.y);
      const heading = headingUnits(own.yaw);
      const cpm: Cpm = {
        stationId: station.stationId,
        generationDeltaTime: itsMilliseconds(now) % 65536,
        stationType: station.stationType,
        referencePosition: {
          latitude: latitudeUnits(lat),
          longitude: latitudeUnits(lon),
          semiMajorConfidence: 1,
          semiMinorConfidence: 1,
          semiMajorOrientation: heading,
          altitudeValue: 0,
          altitudeConfidence: 0,
        },
        originatingVehicle: {
          headingValue: heading,
          headingConfidence: 1,
          speedValue: speedUnits(own.v),
          speedConfidence: 1,
          ...(own.v < 0 ? { driveDirection: 1 } : {}),
          longitudinalAcceleration: { value: clamp(Math.round(acceleration * 10), -160, 160), confidence: 1 },
          yawRate: { value: clamp(Math.round(((own.yawRate * 180) / Math.PI) * 100), -32766, 32766), confidence: 0 },
          vehicleLength: { value: clamp(Math.round(station.length * 10), 1, 1022), confidenceIndication: 0 },
          vehicleWidth: clamp(Math.round(station.width * 10), 1, 61),
        },
        numberOfPerceivedObjects: Math.min(255, seen.length),
      };
      if (decision.sensorInformation) cpm.sensors = [lidarSensorInformation({ ...scan, beams: scan.ranges.length })];
      if (included.length) cpm.objects = included.map((o) => perceivedObjectOf(o, { ...own, t: now }, now));
      const state = { t: now, x: own.x, y: own.y, yaw: own.yaw, v: own.v };
      const packet = encodeShb({
        source: positionVectorOf(state, station, ref),
        btpPort: BTP_PORT_CPM,
        trafficClass: CPM_TRAFFIC_CLASS,
        payload: encodeCpm(cpm),
      });
      const triggers = Object.fromEntries(decision.objects.map((o) => [o.id, o.trigger]));
      ctx.send('*', CPM_MESSAGE, { cpm, triggers }, { packet });
    },
  };
}

/** A CPM from a message: decoded from its GN packet when it has one, else from its JSON body. */
export function cpmOf(msg: V2VMessage): Cpm | undefined {
  if (msg.type !== CPM_MESSAGE) return undefined;
  try {
    if (msg.packet instanceof Uint8Array) {
      const packet = decodeShb(msg.packet);
      if (packet.btpPort !== BTP_PORT_CPM) return undefined;
      return decodeCpm(packet.payload);
    }
    const body = msg.body as { cpm?: Cpm };
    if (!body.cpm || typeof body.cpm.stationId !== 'number') return undefined;
    return decodeCpm(encodeCpm(body.cpm));
  } catch {
    return undefined;
  }
}
