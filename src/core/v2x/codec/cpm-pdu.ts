import { decodeReferencePosition, encodeReferencePosition, type ReferencePosition } from './cam-pdu.js';
import { BitReader, BitWriter, UperError } from './uper.js';

/**
 * The Collective Perception Message of ETSI TR 103 562 V2.1.1 (2019-12), annex A (module
 * CPM-PDU-Descriptions, tr(103562) cpm(1) version(1)), over ITS-Container version 2 (TS 102 894-2
 * V1.3.1), UPER-encoded: the CPM that Wireshark 4.0's ITS dissector decodes as "CPM" (its
 * asn1/its/CPM.asn; messageID cpm (14), protocolVersion 1). It is not the CPM of TS 103 324
 * V2.1.1 (2023), which has no generationDeltaTime, wraps its containers in an open-type list
 * (WrappedCpmContainers) and gives positions and velocities in other types (docs/v2x-messages.md).
 *
 * What a vehicle's CPM carries here: the management container (station type, reference position,
 * optionally the segment info), the originating vehicle container (heading, speed, optionally
 * drive direction, longitudinal acceleration, yaw rate, length and width), the sensor information
 * container (vehicle sensors: offsets and each sensor's range and horizontal opening angles) and
 * the perceived object container; no free-space addendum, no RSU container. Every field is in the
 * standard's own units. Types as TR 103 562 V2.1.1 gives them:
 *
 *   CPM ::= SEQUENCE { header ItsPduHeader, cpm CollectivePerceptionMessage }
 *   CollectivePerceptionMessage ::= SEQUENCE { generationDeltaTime (0..65535), cpmParameters }
 *   CpmParameters ::= SEQUENCE { managementContainer, stationDataContainer OPTIONAL,
 *     sensorInformationContainer OPTIONAL, perceivedObjectContainer OPTIONAL,
 *     freeSpaceAddendumContainer OPTIONAL, numberOfPerceivedObjects (0..255), ... }
 *   CpmManagementContainer ::= SEQUENCE { stationType, perceivedObjectContainerSegmentInfo
 *     OPTIONAL, referencePosition, ... }
 *   StationDataContainer ::= CHOICE { originatingVehicleContainer, originatingRSUContainer, ... }
 *   OriginatingVehicleContainer ::= SEQUENCE { heading, speed, vehicleOrientationAngle OPTIONAL,
 *     driveDirection DEFAULT forward, longitudinalAcceleration, lateralAcceleration,
 *     verticalAcceleration, yawRate, pitchAngle, rollAngle, vehicleLength, vehicleWidth,
 *     vehicleHeight, trailerDataContainer (all OPTIONAL), ... }
 *   SensorInformationContainer ::= SEQUENCE SIZE(1..128, ...) OF SensorInformation
 *   SensorInformation ::= SEQUENCE { sensorID (0..255), type SensorType (0..15), detectionArea,
 *     freeSpaceConfidence (0..101) OPTIONAL, ... }
 *   DetectionArea ::= CHOICE { vehicleSensor, stationarySensorRadial, ...Polygon, ...Circular,
 *     ...Ellipse, ...Rectangle, ... }
 *   VehicleSensor ::= SEQUENCE { refPointId (0..255) DEFAULT 0, xSensorOffset (-5000..0),
 *     ySensorOffset (-1000..1000), zSensorOffset (0..1000) OPTIONAL, vehicleSensorPropertyList
 *     SEQUENCE SIZE(1..10) OF VehicleSensorProperties, ... }
 *   VehicleSensorProperties ::= SEQUENCE { range (0..10000), horizontalOpeningAngleStart,
 *     horizontalOpeningAngleEnd CartesianAngleValue (0..3601), verticalOpeningAngleStart
 *     OPTIONAL, verticalOpeningAngleEnd OPTIONAL, ... }
 *   PerceivedObjectContainer ::= SEQUENCE SIZE(1..128, ...) OF PerceivedObject
 *   PerceivedObject ::= SEQUENCE { objectID (0..255), sensorIDList OPTIONAL, timeOfMeasurement
 *     (-1500..1500), objectAge (0..1500) OPTIONAL, objectConfidence (0..101) DEFAULT 0,
 *     xDistance, yDistance ObjectDistanceWithConfidence, zDistance OPTIONAL, xSpeed, ySpeed
 *     SpeedExtended, zSpeed OPTIONAL, x/y/zAcceleration OPTIONAL, yawAngle OPTIONAL,
 *     planarObjectDimension1, planarObjectDimension2, verticalObjectDimension OPTIONAL,
 *     objectRefPoint (0..8) DEFAULT 0, dynamicStatus (0..2) OPTIONAL, classification OPTIONAL,
 *     matchedPosition OPTIONAL, ... }
 *   ObjectDistanceWithConfidence ::= SEQUENCE { value (-132768..132767) 0.01 m, confidence (0..102) }
 *   SpeedExtended ::= SEQUENCE { value (-16383..16383) 0.01 m/s, confidence SpeedConfidence (1..127) }
 *   ObjectDimension ::= SEQUENCE { value (0..1023) 0.1 m, confidence (0..102) }
 *
 * Distances are from the reference position in the originating vehicle's frame (ISO 8855: x
 * forward, y to the left); speeds are the object's relative to the originating vehicle, in the
 * same frame. DEFAULT fields equal to their default are not encoded (X.691 canonical).
 */
export const CPM_PROTOCOL_VERSION = 1;
export const CPM_MESSAGE_ID = 14;

/** SensorType values of TR 103 562. */
export const SENSOR_TYPE = { undefined: 0, radar: 1, lidar: 2 } as const;
export const DYNAMIC_STATUS = { dynamic: 0, hasBeenDynamic: 1, static: 2 } as const;

export interface OriginatingVehicle {
  headingValue: number; // 0.1 degree clockwise from north, 3601 unavailable
  headingConfidence: number; // 1..127
  speedValue: number; // 0.01 m/s, 16383 unavailable
  speedConfidence: number; // 1..127
  /** 0 forward (the default, not encoded), 1 backward, 2 unavailable. */
  driveDirection?: number;
  longitudinalAcceleration?: { value: number; confidence: number }; // 0.1 m/s^2 (-160..161), 0..102
  yawRate?: { value: number; confidence: number }; // 0.01 degree/s (-32766..32767), 0..8
  vehicleLength?: { value: number; confidenceIndication: number }; // 0.1 m (1..1023), 0..4
  vehicleWidth?: number; // 0.1 m, 1..62
}

export interface VehicleSensorProperties {
  range: number; // 0.1 m, 0..10000
  horizontalOpeningAngleStart: number; // 0.1 degree counter-clockwise from x, 0..3601
  horizontalOpeningAngleEnd: number;
  verticalOpeningAngleStart?: number;
  verticalOpeningAngleEnd?: number;
}

export interface SensorInformation {
  sensorId: number; // 0..255
  type: number; // SensorType 0..15
  /** detectionArea vehicleSensor: the sensor's mounting and field of view. */
  vehicleSensor: {
    refPointId?: number; // 0 (the default, not encoded) .. 255
    xSensorOffset: number; // 0.01 m, -5000..0
    ySensorOffset: number; // 0.01 m, -1000..1000
    zSensorOffset?: number; // 0.01 m, 0..1000
    properties: VehicleSensorProperties[]; // 1..10
  };
  freeSpaceConfidence?: number; // 0..101
}

export interface ValueWithConfidence {
  value: number;
  confidence: number;
}

export interface PerceivedObject {
  objectId: number; // 0..255
  sensorIds?: number[]; // 1..128 sensor IDs
  timeOfMeasurement: number; // ms relative to generationDeltaTime, -1500..1500
  objectAge?: number; // ms, 0..1500
  objectConfidence: number; // 0..101; 0 (the default) is not encoded
  xDistance: ValueWithConfidence; // 0.01 m, confidence 0..102
  yDistance: ValueWithConfidence;
  xSpeed: ValueWithConfidence; // 0.01 m/s (-16383..16383), confidence 1..127
  ySpeed: ValueWithConfidence;
  planarObjectDimension1?: ValueWithConfidence; // 0.1 m (0..1023), confidence 0..102
  planarObjectDimension2?: ValueWithConfidence;
  dynamicStatus?: number; // 0 dynamic, 1 hasBeenDynamic, 2 static
}

export interface Cpm {
  stationId: number;
  generationDeltaTime: number; // ms, TimestampIts mod 65536
  stationType: number;
  segment?: { total: number; index: number }; // 1..127 each
  referencePosition: ReferencePosition;
  originatingVehicle?: OriginatingVehicle;
  sensors?: SensorInformation[]; // 1..128
  objects?: PerceivedObject[]; // 1..128
  numberOfPerceivedObjects: number; // 0..255
}

const MAX_LIST = 128;

/** SEQUENCE SIZE(1..128, ...) OF: the extension bit, then the count less one in 7 bits. */
function writeListSize(w: BitWriter, what: string, n: number): void {
  w.bool(false);
  w.integer(what, n, 1, MAX_LIST);
}

function readListSize(r: BitReader, what: string): number {
  if (r.bool()) throw new UperError(`${what}: a size outside 1..128 is not supported`);
  return r.integer(what, 1, MAX_LIST);
}

export function encodeCpm(cpm: Cpm): Uint8Array {
  const w = new BitWriter();
  w.integer('protocolVersion', CPM_PROTOCOL_VERSION, 0, 255);
  w.integer('messageID', CPM_MESSAGE_ID, 0, 255);
  w.integer('stationID', cpm.stationId, 0, 4294967295);
  w.integer('generationDeltaTime', cpm.generationDeltaTime, 0, 65535);
  // CpmParameters: extensible; four optional containers (no free-space addendum here)
  w.bool(false);
  w.bool(cpm.originatingVehicle !== undefined);
  w.bool(cpm.sensors !== undefined);
  w.bool(cpm.objects !== undefined);
  w.bool(false);
  // CpmManagementContainer
  w.bool(false);
  w.bool(cpm.segment !== undefined);
  w.integer('stationType', cpm.stationType, 0, 255);
  if (cpm.segment) {
    w.integer('totalMsgSegments', cpm.segment.total, 1, 127);
    w.integer('thisSegmentNum', cpm.segment.index, 1, 127);
  }
  encodeReferencePosition(w, cpm.referencePosition);
  if (cpm.originatingVehicle) {
    w.enumerated('stationDataContainer', 0, 2, true); // originatingVehicleContainer
    encodeOriginatingVehicle(w, cpm.originatingVehicle);
  }
  if (cpm.sensors) {
    writeListSize(w, 'sensorInformationContainer size', cpm.sensors.length);
    for (const s of cpm.sensors) encodeSensor(w, s);
  }
  if (cpm.objects) {
    writeListSize(w, 'perceivedObjectContainer size', cpm.objects.length);
    for (const o of cpm.objects) encodeObject(w, o);
  }
  w.integer('numberOfPerceivedObjects', cpm.numberOfPerceivedObjects, 0, 255);
  return w.finish();
}

function encodeOriginatingVehicle(w: BitWriter, v: OriginatingVehicle): void {
  const backward = v.driveDirection !== undefined && v.driveDirection !== 0;
  w.bool(false); // extension bit
  w.bool(false); // vehicleOrientationAngle
  w.bool(backward);
  w.bool(v.longitudinalAcceleration !== undefined);
  w.bool(false); // lateralAcceleration
  w.bool(false); // verticalAcceleration
  w.bool(v.yawRate !== undefined);
  w.bool(false); // pitchAngle
  w.bool(false); // rollAngle
  w.bool(v.vehicleLength !== undefined);
  w.bool(v.vehicleWidth !== undefined);
  w.bool(false); // vehicleHeight
  w.bool(false); // trailerDataContainer
  w.integer('headingValue', v.headingValue, 0, 3601);
  w.integer('headingConfidence', v.headingConfidence, 1, 127);
  w.integer('speedValue', v.speedValue, 0, 16383);
  w.integer('speedConfidence', v.speedConfidence, 1, 127);
  if (backward) w.enumerated('driveDirection', v.driveDirection!, 3);
  if (v.longitudinalAcceleration) {
    w.integer('longitudinalAccelerationValue', v.longitudinalAcceleration.value, -160, 161);
    w.integer('longitudinalAccelerationConfidence', v.longitudinalAcceleration.confidence, 0, 102);
  }
  if (v.yawRate) {
    w.integer('yawRateValue', v.yawRate.value, -32766, 32767);
    w.enumerated('yawRateConfidence', v.yawRate.confidence, 9);
  }
  if (v.vehicleLength) {
    w.integer('vehicleLengthValue', v.vehicleLength.value, 1, 1023);
    w.enumerated('vehicleLengthConfidenceIndication', v.vehicleLength.confidenceIndication, 5);
  }
  if (v.vehicleWidth !== undefined) w.integer('vehicleWidth', v.vehicleWidth, 1, 62);
}

function encodeSensor(w: BitWriter, s: SensorInformation): void {
  w.bool(false); // extension bit
  w.bool(s.freeSpaceConfidence !== undefined);
  w.integer('sensorID', s.sensorId, 0, 255);
  w.integer('sensorType', s.type, 0, 15);
  w.enumerated('detectionArea', 0, 6, true); // vehicleSensor
  const vs = s.vehicleSensor;
  const withRefPoint = vs.refPointId !== undefined && vs.refPointId !== 0;
  w.bool(false); // extension bit
  w.bool(withRefPoint);
  w.bool(vs.zSensorOffset !== undefined);
  if (withRefPoint) w.integer('refPointId', vs.refPointId!, 0, 255);
  w.integer('xSensorOffset', vs.xSensorOffset, -5000, 0);
  w.integer('ySensorOffset', vs.ySensorOffset, -1000, 1000);
  if (vs.zSensorOffset !== undefined) w.integer('zSensorOffset', vs.zSensorOffset, 0, 1000);
  w.integer('vehicleSensorPropertyList size', vs.properties.length, 1, 10);
  for (const p of vs.properties) {
    w.bool(false); // extension bit
    w.bool(p.verticalOpeningAngleStart !== undefined);
    w.bool(p.verticalOpeningAngleEnd !== undefined);
    w.integer('range', p.range, 0, 10000);
    w.integer('horizontalOpeningAngleStart', p.horizontalOpeningAngleStart, 0, 3601);
    w.integer('horizontalOpeningAngleEnd', p.horizontalOpeningAngleEnd, 0, 3601);
    if (p.verticalOpeningAngleStart !== undefined) w.integer('verticalOpeningAngleStart', p.verticalOpeningAngleStart, 0, 3601);
    if (p.verticalOpeningAngleEnd !== undefined) w.integer('verticalOpeningAngleEnd', p.verticalOpeningAngleEnd, 0, 3601);
  }
  if (s.freeSpaceConfidence !== undefined) w.integer('freeSpaceConfidence', s.freeSpaceConfidence, 0, 101);
}

function encodeObject(w: BitWriter, o: PerceivedObject): void {
  w.bool(false); // extension bit
  // sixteen OPTIONAL / DEFAULT fields, in order
  w.bool(o.sensorIds !== undefined);
  w.bool(o.objectAge !== undefined);
  w.bool(o.objectConfidence !== 0);
  w.bits(0, 6); // zDistance, zSpeed, x/y/zAcceleration, yawAngle
  w.bool(o.planarObjectDimension1 !== undefined);
  w.bool(o.planarObjectDimension2 !== undefined);
  w.bool(false); // verticalObjectDimension
  w.bool(false); // objectRefPoint: mid (the default)
  w.bool(o.dynamicStatus !== undefined);
  w.bool(false); // classification
  w.bool(false); // matchedPosition
  w.integer('objectID', o.objectId, 0, 255);
  if (o.sensorIds) {
    writeListSize(w, 'sensorIDList size', o.sensorIds.length);
    for (const id of o.sensorIds) w.integer('sensorID', id, 0, 255);
  }
  w.integer('timeOfMeasurement', o.timeOfMeasurement, -1500, 1500);
  if (o.objectAge !== undefined) w.integer('objectAge', o.objectAge, 0, 1500);
  if (o.objectConfidence !== 0) w.integer('objectConfidence', o.objectConfidence, 0, 101);
  for (const [what, d] of [
    ['xDistance', o.xDistance],
    ['yDistance', o.yDistance],
  ] as const) {
    w.integer(`${what}.value`, d.value, -132768, 132767);
    w.integer(`${what}.confidence`, d.confidence, 0, 102);
  }
  for (const [what, s] of [
    ['xSpeed', o.xSpeed],
    ['ySpeed', o.ySpeed],
  ] as const) {
    w.integer(`${what}.value`, s.value, -16383, 16383);
    w.integer(`${what}.confidence`, s.confidence, 1, 127);
  }
  for (const [what, d] of [
    ['planarObjectDimension1', o.planarObjectDimension1],
    ['planarObjectDimension2', o.planarObjectDimension2],
  ] as const) {
    if (!d) continue;
    w.integer(`${what}.value`, d.value, 0, 1023);
    w.integer(`${what}.confidence`, d.confidence, 0, 102);
  }
  if (o.dynamicStatus !== undefined) w.integer('dynamicStatus', o.dynamicStatus, 0, 2);
}

/** Decodes a CPM; throws UperError for another message, a truncated one, or what this codec does not carry. */
export function decodeCpm(data: Uint8Array): Cpm {
  const r = new BitReader(data);
  const protocolVersion = r.integer('protocolVersion', 0, 255);
  const messageId = r.integer('messageID', 0, 255);
  if (messageId !== CPM_MESSAGE_ID) throw new UperError(`messageID ${messageId} is not a CPM (${CPM_MESSAGE_ID})`);
  if (protocolVersion !== CPM_PROTOCOL_VERSION)
    throw new UperError(`CPM protocolVersion ${protocolVersion} is not ${CPM_PROTOCOL_VERSION}`);
  const stationId = r.integer('stationID', 0, 4294967295);
  const generationDeltaTime = r.integer('generationDeltaTime', 0, 65535);
  r.noExtensions('cpmParameters');
  const [hasStation, hasSensors, hasObjects] = [r.bool(), r.bool(), r.bool()];
  if (r.bool()) throw new UperError('freeSpaceAddendumContainer is not supported');
  r.noExtensions('managementContainer');
  const hasSegment = r.bool();
  const stationType = r.integer('stationType', 0, 255);
  const segment = hasSegment ? { total: r.integer('totalMsgSegments', 1, 127), index: r.integer('thisSegmentNum', 1, 127) } : undefined;
  const referencePosition = decodeReferencePosition(r);
  const cpm: Cpm = { stationId, generationDeltaTime, stationType, referencePosition, numberOfPerceivedObjects: 0 };
  if (segment) cpm.segment = segment;
  if (hasStation) {
    if (r.enumerated('stationDataContainer', 2, true) !== 0) throw new UperError('originatingRSUContainer is not supported');
    cpm.originatingVehicle = decodeOriginatingVehicle(r);
  }
  if (hasSensors) {
    const n = readListSize(r, 'sensorInformationContainer size');
    cpm.sensors = Array.from({ length: n }, () => decodeSensor(r));
  }
  if (hasObjects) {
    const n = readListSize(r, 'perceivedObjectContainer size');
    cpm.objects = Array.from({ length: n }, () => decodeObject(r));
  }
  cpm.numberOfPerceivedObjects = r.integer('numberOfPerceivedObjects', 0, 255);
  return cpm;
}

function decodeOriginatingVehicle(r: BitReader): OriginatingVehicle {
  r.noExtensions('originatingVehicleContainer');
  const present = Array.from({ length: 12 }, () => r.bool());
  const [orientation, direction, longitudinal, lateral, vertical, yawRate, pitch, roll, length, width, height, trailer] = present;
  if (orientation || lateral || vertical || pitch || roll || height || trailer)
    throw new UperError('originatingVehicleContainer: a field this codec does not carry is present');
  const v: OriginatingVehicle = {
    headingValue: r.integer('headingValue', 0, 3601),
    headingConfidence: r.integer('headingConfidence', 1, 127),
    speedValue: r.integer('speedValue', 0, 16383),
    speedConfidence: r.integer('speedConfidence', 1, 127),
  };
  if (direction) v.driveDirection = r.enumerated('driveDirection', 3);
  if (longitudinal)
    v.longitudinalAcceleration = {
      value: r.integer('longitudinalAccelerationValue', -160, 161),
      confidence: r.integer('longitudinalAccelerationConfidence', 0, 102),
    };
  if (yawRate) v.yawRate = { value: r.integer('yawRateValue', -32766, 32767), confidence: r.enumerated('yawRateConfidence', 9) };
  if (length)
    v.vehicleLength = {
      value: r.integer('vehicleLengthValue', 1, 1023),
      confidenceIndication: r.enumerated('vehicleLengthConfidenceIndication', 5),
    };
  if (width) v.vehicleWidth = r.integer('vehicleWidth', 1, 62);
  return v;
}

function decodeSensor(r: BitReader): SensorInformation {
  r.noExtensions('sensorInformation');
  const hasFreeSpace = r.bool();
  const sensorId = r.integer('sensorID', 0, 255);
  const type = r.integer('sensorType', 0, 15);
  if (r.enumerated('detectionArea', 6, true) !== 0) throw new UperError('detectionArea: only vehicleSensor is supported');
  r.noExtensions('vehicleSensor');
  const [hasRefPoint, hasZ] = [r.bool(), r.bool()];
  const refPointId = hasRefPoint ? r.integer('refPointId', 0, 255) : undefined;
  const xSensorOffset = r.integer('xSensorOffset', -5000, 0);
  const ySensorOffset = r.integer('ySensorOffset', -1000, 1000);
  const zSensorOffset = hasZ ? r.integer('zSensorOffset', 0, 1000) : undefined;
  const count = r.integer('vehicleSensorPropertyList size', 1, 10);
  const properties: VehicleSensorProperties[] = [];
  for (let i = 0; i < count; i++) {
    r.noExtensions('vehicleSensorProperties');
    const [hasStart, hasEnd] = [r.bool(), r.bool()];
    const p: VehicleSensorProperties = {
      range: r.integer('range', 0, 10000),
      horizontalOpeningAngleStart: r.integer('horizontalOpeningAngleStart', 0, 3601),
      horizontalOpeningAngleEnd: r.integer('horizontalOpeningAngleEnd', 0, 3601),
    };
    if (hasStart) p.verticalOpeningAngleStart = r.integer('verticalOpeningAngleStart', 0, 3601);
    if (hasEnd) p.verticalOpeningAngleEnd = r.integer('verticalOpeningAngleEnd', 0, 3601);
    properties.push(p);
  }
  const s: SensorInformation = { sensorId, type, vehicleSensor: { xSensorOffset, ySensorOffset, properties } };
  if (refPointId !== undefined) s.vehicleSensor.refPointId = refPointId;
  if (zSensorOffset !== undefined) s.vehicleSensor.zSensorOffset = zSensorOffset;
  if (hasFreeSpace) s.freeSpaceConfidence = r.integer('freeSpaceConfidence', 0, 101);
  return s;
}

function decodeObject(r: BitReader): PerceivedObject {
  r.noExtensions('perceivedObject');
  const [hasSensors, hasAge, hasConfidence] = [r.bool(), r.bool(), r.bool()];
  if (r.bits(6) !== 0) throw new UperError('perceivedObject: z distance, z speed, accelerations and yaw angle are not supported');
  const [hasDim1, hasDim2] = [r.bool(), r.bool()];
  if (r.bits(2) !== 0) throw new UperError('perceivedObject: verticalObjectDimension and objectRefPoint are not supported');
  const hasStatus = r.bool();
  if (r.bits(2) !== 0) throw new UperError('perceivedObject: classification and matchedPosition are not supported');
  const objectId = r.integer('objectID', 0, 255);
  let sensorIds: number[] | undefined;
  if (hasSensors) {
    const n = readListSize(r, 'sensorIDList size');
    sensorIds = Array.from({ length: n }, () => r.integer('sensorID', 0, 255));
  }
  const timeOfMeasurement = r.integer('timeOfMeasurement', -1500, 1500);
  const objectAge = hasAge ? r.integer('objectAge', 0, 1500) : undefined;
  const objectConfidence = hasConfidence ? r.integer('objectConfidence', 0, 101) : 0;
  const distance = () => ({ value: r.integer('distance', -132768, 132767), confidence: r.integer('distance confidence', 0, 102) });
  const xDistance = distance();
  const yDistance = distance();
  const speed = () => ({ value: r.integer('speed', -16383, 16383), confidence: r.integer('speed confidence', 1, 127) });
  const xSpeed = speed();
  const ySpeed = speed();
  const o: PerceivedObject = { objectId, timeOfMeasurement, objectConfidence, xDistance, yDistance, xSpeed, ySpeed };
  if (sensorIds) o.sensorIds = sensorIds;
  if (objectAge !== undefined) o.objectAge = objectAge;
  const dimension = () => ({ value: r.integer('objectDimension', 0, 1023), confidence: r.integer('objectDimension confidence', 0, 102) });
  if (hasDim1) o.planarObjectDimension1 = dimension();
  if (hasDim2) o.planarObjectDimension2 = dimension();
  if (hasStatus) o.dynamicStatus = r.integer('dynamicStatus', 0, 2);
  return o;
}
