import { BitReader, BitWriter, UperError } from './uper.js';

/**
 * The CAM of EN 302 637-2 V1.4.1 (module CAM-PDU-Descriptions, version 2, protocolVersion 2) over
 * ITS-Container version 2 (TS 102 894-2 V1.3.1), UPER-encoded. What a vehicle's CAM carries here:
 * the basic container, basicVehicleContainerHighFrequency with its optional fields absent, and an
 * optional basicVehicleContainerLowFrequency; no special-vehicle container. Every field is in the
 * standard's own units (1e-7 degree, 0.01 m/s, 0.1 degree, ...): cam-fields.ts converts.
 */
export const CAM_PROTOCOL_VERSION = 2;
export const CAM_MESSAGE_ID = 2;

export interface ReferencePosition {
  latitude: number; // 1e-7 degree, 900000001 unavailable
  longitude: number; // 1e-7 degree, 1800000001 unavailable
  semiMajorConfidence: number; // cm, 4095 unavailable
  semiMinorConfidence: number;
  semiMajorOrientation: number; // 0.1 degree from north, 3601 unavailable
  altitudeValue: number; // cm, 800001 unavailable
  altitudeConfidence: number; // AltitudeConfidence index, 15 unavailable
}

export interface HighFrequencyContainer {
  headingValue: number; // 0.1 degree clockwise from north
  headingConfidence: number; // 1..127
  speedValue: number; // 0.01 m/s
  speedConfidence: number; // 1..127
  driveDirection: number; // 0 forward, 1 backward, 2 unavailable
  vehicleLengthValue: number; // 0.1 m
  vehicleLengthConfidenceIndication: number; // 0 noTrailerPresent .. 4 unavailable
  vehicleWidth: number; // 0.1 m
  longitudinalAccelerationValue: number; // 0.1 m/s^2, 161 unavailable
  longitudinalAccelerationConfidence: number; // 0..102
  curvatureValue: number; // 1/(10000 m), positive to the left
  curvatureConfidence: number; // 0..7
  curvatureCalculationMode: number; // 0 yawRateUsed, 1 yawRateNotUsed, 2 unavailable
  yawRateValue: number; // 0.01 degree/s, positive to the left
  yawRateConfidence: number; // 0..8
}

export interface PathPoint {
  deltaLatitude: number;
  deltaLongitude: number;
  deltaAltitude: number;
  pathDeltaTime?: number; // 10 ms
}

export interface LowFrequencyContainer {
  vehicleRole: number; // 0 default .. 15
  /** ExteriorLights' 8 bits, lowBeamHeadlightsOn (bit 0) as the most significant. */
  exteriorLights: number;
  pathHistory: PathPoint[];
}

export interface Cam {
  stationId: number;
  generationDeltaTime: number; // ms, TimestampIts mod 65536
  stationType: number;
  referencePosition: ReferencePosition;
  highFrequency: HighFrequencyContainer;
  lowFrequency?: LowFrequencyContainer;
}

const MAX_PATH_POINTS = 40;

export function encodeCam(cam: Cam): Uint8Array {
  const w = new BitWriter();
  w.integer('protocolVersion', CAM_PROTOCOL_VERSION, 0, 255);
  w.integer('messageID', CAM_MESSAGE_ID, 0, 255);
  w.integer('stationID', cam.stationId, 0, 4294967295);
  w.integer('generationDeltaTime', cam.generationDeltaTime, 0, 65535);
  // CamParameters: extensible; lowFrequencyContainer and specialVehicleContainer optional
  w.bool(false);
  w.bool(cam.lowFrequency !== undefined);
  w.bool(false);
  w.bool(false); // BasicContainer's extension bit
  w.integer('stationType', cam.stationType, 0, 255);
  encodeReferencePosition(w, cam.referencePosition);
  w.enumerated('highFrequencyContainer', 0, 2, true); // basicVehicleContainerHighFrequency
  encodeHighFrequency(w, cam.highFrequency);
  if (cam.lowFrequency) {
    w.enumerated('lowFrequencyContainer', 0, 1, true); // basicVehicleContainerLowFrequency
    encodeLowFrequency(w, cam.lowFrequency);
  }
  return w.finish();
}

export function encodeReferencePosition(w: BitWriter, p: ReferencePosition): void {
  w.integer('latitude', p.latitude, -900000000, 900000001);
  w.integer('longitude', p.longitude, -1800000000, 1800000001);
  w.integer('semiMajorConfidence', p.semiMajorConfidence, 0, 4095);
  w.integer('semiMinorConfidence', p.semiMinorConfidence, 0, 4095);
  w.integer('semiMajorOrientation', p.semiMajorOrientation, 0, 3601);
  w.integer('altitudeValue', p.altitudeValue, -100000, 800001);
  w.enumerated('altitudeConfidence', p.altitudeConfidence, 16);
}

function encodeHighFrequency(w: BitWriter, h: HighFrequencyContainer): void {
  w.bits(0, 7); // no extension marker; seven OPTIONAL fields, all absent
  w.integer('headingValue', h.headingValue, 0, 3601);
  w.integer('headingConfidence', h.headingConfidence, 1, 127);
  w.integer('speedValue', h.speedValue, 0, 16383);
  w.integer('speedConfidence', h.speedConfidence, 1, 127);
  w.enumerated('driveDirection', h.driveDirection, 3);
  w.integer('vehicleLengthValue', h.vehicleLengthValue, 1, 1023);
  w.enumerated('vehicleLengthConfidenceIndication', h.vehicleLengthConfidenceIndication, 5);
  w.integer('vehicleWidth', h.vehicleWidth, 1, 62);
  w.integer('longitudinalAccelerationValue', h.longitudinalAccelerationValue, -160, 161);
  w.integer('longitudinalAccelerationConfidence', h.longitudinalAccelerationConfidence, 0, 102);
  w.integer('curvatureValue', h.curvatureValue, -1023, 1023);
  w.enumerated('curvatureConfidence', h.curvatureConfidence, 8);
  w.enumerated('curvatureCalculationMode', h.curvatureCalculationMode, 3, true);
  w.integer('yawRateValue', h.yawRateValue, -32766, 32767);
  w.enumerated('yawRateConfidence', h.yawRateConfidence, 9);
}

function encodeLowFrequency(w: BitWriter, l: LowFrequencyContainer): void {
  w.enumerated('vehicleRole', l.vehicleRole, 16);
  w.integer('exteriorLights', l.exteriorLights, 0, 255);
  w.integer('pathHistory size', l.pathHistory.length, 0, MAX_PATH_POINTS);
  for (const p of l.pathHistory) {
    w.bool(p.pathDeltaTime !== undefined);
    w.integer('deltaLatitude', p.deltaLatitude, -131071, 131072);
    w.integer('deltaLongitude', p.deltaLongitude, -131071, 131072);
    w.integer('deltaAltitude', p.deltaAltitude, -12700, 12800);
    if (p.pathDeltaTime !== undefined) w.integer('pathDeltaTime', p.pathDeltaTime, 1, 65535, true);
  }
}

/** Decodes a CAM; throws UperError for another message, a truncated one, or extensions it does not know. */
export function decodeCam(data: Uint8Array): Cam {
  const r = new BitReader(data);
  const protocolVersion = r.integer('protocolVersion', 0, 255);
  const messageId = r.integer('messageID', 0, 255);
  if (messageId !== CAM_MESSAGE_ID) throw new UperError(`messageID ${messageId} is not a CAM (${CAM_MESSAGE_ID})`);
  if (protocolVersion !== CAM_PROTOCOL_VERSION)
    throw new UperError(`CAM protocolVersion ${protocolVersion} is not ${CAM_PROTOCOL_VERSION}`);
  const stationId = r.integer('stationID', 0, 4294967295);
  const generationDeltaTime = r.integer('generationDeltaTime', 0, 65535);
  r.noExtensions('camParameters');
  const hasLowFrequency = r.bool();
  if (r.bool()) throw new UperError('specialVehicleContainer is not supported');
  r.noExtensions('basicContainer');
  const stationType = r.integer('stationType', 0, 255);
  const referencePosition = decodeReferencePosition(r);
  if (r.enumerated('highFrequencyContainer', 2, true) !== 0) throw new UperError('rsuContainerHighFrequency is not supported');
  const highFrequency = decodeHighFrequency(r);
  const cam: Cam = { stationId, generationDeltaTime, stationType, referencePosition, highFrequency };
  if (hasLowFrequency) {
    r.enumerated('lowFrequencyContainer', 1, true);
    cam.lowFrequency = decodeLowFrequency(r);
  }
  return cam;
}

export function decodeReferencePosition(r: BitReader): ReferencePosition {
  return {
    latitude: r.integer('latitude', -900000000, 900000001),
    longitude: r.integer('longitude', -1800000000, 1800000001),
    semiMajorConfidence: r.integer('semiMajorConfidence', 0, 4095),
    semiMinorConfidence: r.integer('semiMinorConfidence', 0, 4095),
    semiMajorOrientation: r.integer('semiMajorOrientation', 0, 3601),
    altitudeValue: r.integer('altitudeValue', -100000, 800001),
    altitudeConfidence: r.enumerated('altitudeConfidence', 16),
  };
}

function decodeHighFrequency(r: BitReader): HighFrequencyContainer {
  if (r.bits(7) !== 0) throw new UperError('basicVehicleContainerHighFrequency: optional fields are not supported');
  return {
    headingValue: r.integer('headingValue', 0, 3601),
    headingConfidence: r.integer('headingConfidence', 1, 127),
    speedValue: r.integer('speedValue', 0, 16383),
    speedConfidence: r.integer('speedConfidence', 1, 127),
    driveDirection: r.enumerated('driveDirection', 3),
    vehicleLengthValue: r.integer('vehicleLengthValue', 1, 1023),
    vehicleLengthConfidenceIndication: r.enumerated('vehicleLengthConfidenceIndication', 5),
    vehicleWidth: r.integer('vehicleWidth', 1, 62),
    longitudinalAccelerationValue: r.integer('longitudinalAccelerationValue', -160, 161),
    longitudinalAccelerationConfidence: r.integer('longitudinalAccelerationConfidence', 0, 102),
    curvatureValue: r.integer('curvatureValue', -1023, 1023),
    curvatureConfidence: r.enumerated('curvatureConfidence', 8),
    curvatureCalculationMode: r.enumerated('curvatureCalculationMode', 3, true),
    yawRateValue: r.integer('yawRateValue', -32766, 32767),
    yawRateConfidence: r.enumerated('yawRateConfidence', 9),
  };
}

function decodeLowFrequency(r: BitReader): LowFrequencyContainer {
  const vehicleRole = r.enumerated('vehicleRole', 16);
  const exteriorLights = r.bits(8);
  const count = r.integer('pathHistory size', 0, MAX_PATH_POINTS);
  const pathHistory: PathPoint[] = [];
  for (let i = 0; i < count; i++) {
    const hasTime = r.bool();
    const point: PathPoint = {
      deltaLatitude: r.integer('deltaLatitude', -131071, 131072),
      deltaLongitude: r.integer('deltaLongitude', -131071, 131072),
      deltaAltitude: r.integer('deltaAltitude', -12700, 12800),
    };
    if (hasTime) point.pathDeltaTime = r.integer('pathDeltaTime', 1, 65535, true);
    pathHistory.push(point);
  }
  return { vehicleRole, exteriorLights, pathHistory };
}
