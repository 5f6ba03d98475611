/**
 * Map XY (metres, x east, y north) to WGS84 latitude/longitude and back, on the local tangent
 * plane at the geo reference (the map origin): the meridian and prime-vertical radii of curvature
 * at the reference latitude scale metres to degrees. Within a few kilometres of the origin this is
 * off by far less than a CAM's 1e-7 degree (about 1 cm) resolution matters for.
 */
export interface GeoReference {
  lat: number; // degrees
  lon: number; // degrees
}

/** ETSI's site at Sophia Antipolis, France: where a scenario without a geoReference is placed. */
export const DEFAULT_GEO_REFERENCE: GeoReference = { lat: 43.6163, lon: 7.0687 };

const WGS84_A = 6378137;
const WGS84_E2 = 6.69437999014e-3;

function radii(latDeg: number): { meridian: number; normal: number } {
  const s = Math.sin((latDeg * Math.PI) / 180);
  const w = 1 - WGS84_E2 * s * s;
  return { meridian: (WGS84_A * (1 - WGS84_E2)) / w ** 1.5, normal: WGS84_A / Math.sqrt(w) };
}

export function toLatLon(ref: GeoReference, x: number, y: number): { lat: number; lon: number } {
  const r = radii(ref.lat);
  const cosLat = Math.cos((ref.lat * Math.PI) / 180);
  return { lat: ref.lat + ((y / r.meridian) * 180) / Math.PI, lon: ref.lon + ((x / (r.normal * cosLat)) * 180) / Math.PI };
}

export function toMapXY(ref: GeoReference, lat: number, lon: number): { x: number; y: number } {
  const r = radii(ref.lat);
  const cosLat = Math.cos((ref.lat * Math.PI) / 180);
  return { x: (((lon - ref.lon) * Math.PI) / 180) * r.normal * cosLat, y: (((lat - ref.lat) * Math.PI) / 180) * r.meridian };
}

/** ETSI heading (degrees clockwise from north, [0, 360)) of a map yaw (radians counter-clockwise from x = east). */
export function headingDegrees(yaw: number): number {
  const h = 90 - (yaw * 180) / Math.PI;
  return ((h % 360) + 360) % 360;
}

export function yawOfHeading(headingDeg: number): number {
  const yaw = ((90 - headingDeg) * Math.PI) / 180;
  return Math.atan2(Math.sin(yaw), Math.cos(yaw));
}
