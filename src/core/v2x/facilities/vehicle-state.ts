import type { Cam, HighFrequencyContainer } from '../codec/cam-pdu.js';
import { type GeoReference, headingDegrees, toLatLon, toMapXY, yawOfHeading } from '../networking/geo-reference.js';
import type { LongPositionVector } from '../networking/geonetworking.js';
import { stationMac } from '../networking/station-id.js';

/**
 * A simulated car's state in the CAM's and GeoNetworking's units, and back. Simulated time 0 is
 * the ITS epoch (TimestampIts 0, 2004-01-01 00:00:00): a CAM's generationDeltaTime is the
 * generation time in ms mod 65536 and a GN timestamp the same mod 2^32. The simulator's state is
 * exact, so confidences are the finest each field has; altitude is 0 on the map's plane.
 */
export interface VehicleState {
  t: number; // [s]
  x: number; // [m]
  y: number; // [m]
  yaw: number; // [rad]
  v: number; // [m/s], negative when reversing
  yawRate: number; // [rad/s]
  acceleration: number; // longitudinal [m/s^2]
}

export interface StationFacts {
  stationId: number;
  stationType: number;
  length: number; // [m]
  width: number; // [m]
}

/** ITS timestamp [ms] of a simulated time. */
export const itsMilliseconds = (t: number) => Math.round(t * 1000);

/** The latest simulated time at or before `notAfter` whose ms mod 65536 is `generationDeltaTime`. */
export function generationTime(generationDeltaTime: number, notAfter: number): number {
  const latest = itsMilliseconds(notAfter);
  return (latest - ((((latest - generationDeltaTime) % 65536) + 65536) % 65536)) / 1000;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const RAD_TO_DEG = 180 / Math.PI;
/** Below this speed the curvature (yaw rate over speed) is reported unavailable. */
const MIN_SPEED_FOR_CURVATURE = 0.1;

export const latitudeUnits = (deg: number) => Math.round(deg * 1e7);
/** HeadingValue [0.1 degree], 0..3599. */
export const headingUnits = (yaw: number) => Math.round(headingDegrees(yaw) * 10) % 3600;
/** SpeedValue [0.01 m/s]; 16382 is the largest the type has below `unavailable`. */
export const speedUnits = (v: number) => clamp(Math.round(Math.abs(v) * 100), 0, 16382);

export function camOf(s: VehicleState, station: StationFacts, ref: GeoReference, lowFrequency: boolean): Cam {
  const { lat, lon } = toLatLon(ref, s.x, s.y);
  const heading = headingUnits(s.yaw);
  const curvatureKnown = Math.abs(s.v) >= MIN_SPEED_FOR_CURVATURE;
  const highFrequency: HighFrequencyContainer = {
    headingValue: heading,
    headingConfidence: 1,
    speedValue: speedUnits(s.v),
    speedConfidence: 1,
    driveDirection: s.v < 0 ? 1 : 0,
    vehicleLengthValue: clamp(Math.round(station.length * 10), 1, 1022),
    vehicleLengthConfidenceIndication: 0,
    vehicleWidth: clamp(Math.round(station.width * 10), 1, 61),
    longitudinalAccelerationValue: clamp(Math.round(s.acceleration * 10), -160, 160),
    longitudinalAccelerationConfidence: 1,
    curvatureValue: curvatureKnown ? clamp(Math.round((s.yawRate / s.v) * 10000), -1022, 1022) : 1023,
    curvatureConfidence: curvatureKnown ? 0 : 7,
    curvatureCalculationMode: 0,
    yawRateValue: clamp(Math.round(s.yawRate * RAD_TO_DEG * 100), -32766, 32766),
    yawRateConfidence: 0,
  };
  const cam: Cam = {
    stationId: station.stationId,
    generationDeltaTime: itsMilliseconds(s.t) % 65536,
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
    highFrequency,
  };
  if (lowFrequency) cam.lowFrequency = { vehicleRole: 0, exteriorLights: 0, pathHistory: [] };
  return cam;
}

/** The GN source position vector of a station in this state. */
export function positionVectorOf(
  s: Pick<VehicleState, 't' | 'x' | 'y' | 'yaw' | 'v'>,
  station: Pick<StationFacts, 'stationId' | 'stationType'>,
  ref: GeoReference,
): LongPositionVector {
  const { lat, lon } = toLatLon(ref, s.x, s.y);
  return {
    stationType: clamp(station.stationType, 0, 31),
    mac: stationMac(station.stationId),
    timestampMs: itsMilliseconds(s.t) % 2 ** 32,
    latitude: latitudeUnits(lat),
    longitude: latitudeUnits(lon),
    positionAccurate: true,
    speed: clamp(Math.round(s.v * 100), -16384, 16383),
    heading: headingUnits(s.yaw),
  };
}

/** A received CAM as the state it describes, at its generation time (at or before `receivedAt`). */
export function stateOfCam(cam: Cam, ref: GeoReference, receivedAt: number): VehicleState {
  const { x, y } = toMapXY(ref, cam.referencePosition.latitude / 1e7, cam.referencePosition.longitude / 1e7);
  const h = cam.highFrequency;
  const speed = h.speedValue / 100;
  return {
    t: generationTime(cam.generationDeltaTime, receivedAt),
    x,
    y,
    yaw: yawOfHeading(h.headingValue / 10),
    v: h.driveDirection === 1 ? -speed : speed,
    yawRate: h.yawRateValue / 100 / RAD_TO_DEG,
    acceleration: h.longitudinalAccelerationValue === 161 ? 0 : h.longitudinalAccelerationValue / 10,
  };
}
