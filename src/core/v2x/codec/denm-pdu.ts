import { decodeReferencePosition, encodeReferencePosition, type PathPoint, type ReferencePosition } from './cam-pdu.js';
import { BitReader, BitWriter, UperError } from './uper.js';

/**
 * The DENM of EN 302 637-3 V1.3.1 (module DENM-PDU-Descriptions, version 2, protocolVersion 2)
 * over ITS-Container version 2 (TS 102 894-2 V1.3.1), UPER-encoded: the pair Wireshark 4.0
 * decodes as "DENM". What a vehicle's DENM carries here: the management container, the situation
 * container (without eventHistory) and the location container; no à-la-carte container. Every field
 * is in the standard's own units. Types as the ETSI ASN.1 modules give them (forge.etsi.org
 * ITS/asn1 denm_en302637_3 v1.3.1 and cdd_ts102894_2 v1.3.1; the fields Wireshark 4.0's ITS
 * dissector decodes):
 *
 *   DecentralizedEnvironmentalNotificationMessage ::= SEQUENCE { management, situation OPTIONAL,
 *     location OPTIONAL, alacarte OPTIONAL }                      -- no extension marker
 *   ManagementContainer ::= SEQUENCE { actionID, detectionTime TimestampIts, referenceTime
 *     TimestampIts, termination OPTIONAL, eventPosition ReferencePosition, relevanceDistance
 *     OPTIONAL, relevanceTrafficDirection OPTIONAL, validityDuration DEFAULT 600,
 *     transmissionInterval OPTIONAL, stationType, ... }
 *   SituationContainer ::= SEQUENCE { informationQuality (0..7), eventType CauseCode,
 *     linkedCause CauseCode OPTIONAL, eventHistory OPTIONAL, ... }
 *   LocationContainer ::= SEQUENCE { eventSpeed Speed OPTIONAL, eventPositionHeading Heading
 *     OPTIONAL, traces SEQUENCE SIZE(1..7) OF PathHistory, roadType OPTIONAL, ... }
 *   CauseCode ::= SEQUENCE { causeCode (0..255), subCauseCode (0..255), ... }
 *   TimestampIts (0..4398046511103), SequenceNumber (0..65535), ValidityDuration (0..86400),
 *   TransmissionInterval (1..10000), RelevanceDistance ENUMERATED (8), RelevanceTrafficDirection
 *   ENUMERATED (4), Termination ENUMERATED { isCancellation, isNegation }, RoadType ENUMERATED (4)
 */
export const DENM_PROTOCOL_VERSION = 2;
export const DENM_MESSAGE_ID = 1;
/** `defaultValidity` of DENM-PDU-Descriptions [s]: a DENM without validityDuration is valid this long. */
export const DEFAULT_VALIDITY_S = 600;
const MAX_TIMESTAMP_ITS = 4398046511103;

/**
 * Cause codes (CauseCodeType) and sub-cause codes of TS 102 894-2 V1.3.1 that cavsim's events use:
 * dangerousSituation (99) with DangerousSituationSubCauseCode emergencyElectronicBrakeEngaged (1)
 * and aebEngaged (5); collisionRisk (97) with CollisionRiskSubCauseCode longitudinalCollisionRisk
 * (1); stationaryVehicle (94) with StationaryVehicleSubCauseCode unavailable (0).
 */
export const CAUSE = { dangerousSituation: 99, collisionRisk: 97, stationaryVehicle: 94 } as const;
export const SUB_CAUSE = { emergencyElectronicBrakeEngaged: 1, aebEngaged: 5, longitudinalCollisionRisk: 1, unavailable: 0 } as const;

/** RelevanceDistance's classes, by their upper bound [m] (over10km is the last). */
export const RELEVANCE_DISTANCE_BOUNDS = [50, 100, 200, 500, 1000, 5000, 10000] as const;
export const TERMINATION = { isCancellation: 0, isNegation: 1 } as const;
export const TRAFFIC_DIRECTION = { allTrafficDirections: 0, upstreamTraffic: 1, downstreamTraffic: 2, oppositeTraffic: 3 } as const;

export interface ActionId {
  originatingStationId: number;
  sequenceNumber: number;
}

export interface CauseCode {
  causeCode: number;
  subCauseCode: number;
}

export interface ManagementContainer {
  actionId: ActionId;
  detectionTime: number; // TimestampIts, ms since 2004-01-01 00:00:00 UTC
  referenceTime: number; // TimestampIts
  termination?: number; // 0 isCancellation, 1 isNegation
  eventPosition: ReferencePosition;
  relevanceDistance?: number; // RelevanceDistance index
  relevanceTrafficDirection?: number; // RelevanceTrafficDirection index
  validityDuration: number; // s; 600 (the default) is not encoded
  transmissionInterval?: number; // ms
  stationType: number;
}

export interface SituationContainer {
  informationQuality: number; // 0 unavailable, 1 lowest .. 7 highest
  eventType: CauseCode;
  linkedCause?: CauseCode;
}

export interface LocationContainer {
  eventSpeed?: { speedValue: number; speedConfidence: number }; // 0.01 m/s, 1..127
  eventPositionHeading?: { headingValue: number; headingConfidence: number }; // 0.1 degree, 1..127
  /** Traces: 1 to 7 path histories of up to 40 points each. */
  traces: PathPoint[][];
  roadType?: number;
}

export interface Denm {
  stationId: number;
  management: ManagementContainer;
  situation?: SituationContainer;
  location?: LocationContainer;
}

export function encodeDenm(denm: Denm): Uint8Array {
  const w = new BitWriter();
  w.integer('protocolVersion', DENM_PROTOCOL_VERSION, 0, 255);
  w.integer('messageID', DENM_MESSAGE_ID, 0, 255);
  w.integer('stationID', denm.stationId, 0, 4294967295);
  // DecentralizedEnvironmentalNotificationMessage: no extension marker; situation, location, alacarte optional
  w.bool(denm.situation !== undefined);
  w.bool(denm.location !== undefined);
  w.bool(false);
  encodeManagement(w, denm.management);
  if (denm.situation) encodeSituation(w, denm.situation);
  if (denm.location) encodeLocation(w, denm.location);
  return w.finish();
}

function encodeManagement(w: BitWriter, m: ManagementContainer): void {
  const withValidity = m.validityDuration !== DEFAULT_VALIDITY_S; // X.691 canonical: a DEFAULT value is not encoded
  w.bool(false); // extension bit
  w.bool(m.termination !== undefined);
  w.bool(m.relevanceDistance !== undefined);
  w.bool(m.relevanceTrafficDirection !== undefined);
  w.bool(withValidity);
  w.bool(m.transmissionInterval !== undefined);
  w.integer('originatingStationID', m.actionId.originatingStationId, 0, 4294967295);
  w.integer('sequenceNumber', m.actionId.sequenceNumber, 0, 65535);
  w.integer('detectionTime', m.detectionTime, 0, MAX_TIMESTAMP_ITS);
  w.integer('referenceTime', m.referenceTime, 0, MAX_TIMESTAMP_ITS);
  if (m.termination !== undefined) w.enumerated('termination', m.termination, 2);
  encodeReferencePosition(w, m.eventPosition);
  if (m.relevanceDistance !== undefined) w.enumerated('relevanceDistance', m.relevanceDistance, 8);
  if (m.relevanceTrafficDirection !== undefined) w.enumerated('relevanceTrafficDirection', m.relevanceTrafficDirection, 4);
  if (withValidity) w.integer('validityDuration', m.validityDuration, 0, 86400);
  if (m.transmissionInterval !== undefined) w.integer('transmissionInterval', m.transmissionInterval, 1, 10000);
  w.integer('stationType', m.stationType, 0, 255);
}

function encodeCauseCode(w: BitWriter, what: string, c: CauseCode): void {
  w.bool(false); // extension bit
  w.integer(`${what}.causeCode`, c.causeCode, 0, 255);
  w.integer(`${what}.subCauseCode`, c.subCauseCode, 0, 255);
}

function encodeSituation(w: BitWriter, s: SituationContainer): void {
  w.bool(false); // extension bit
  w.bool(s.linkedCause !== undefined);
  w.bool(false); // eventHistory
  w.integer('informationQuality', s.informationQuality, 0, 7);
  encodeCauseCode(w, 'eventType', s.eventType);
  if (s.linkedCause) encodeCauseCode(w, 'linkedCause', s.linkedCause);
}

function encodeLocation(w: BitWriter, l: LocationContainer): void {
  w.bool(false); // extension bit
  w.bool(l.eventSpeed !== undefined);
  w.bool(l.eventPositionHeading !== undefined);
  w.bool(l.roadType !== undefined);
  if (l.eventSpeed) {
    w.integer('eventSpeed.speedValue', l.eventSpeed.speedValue, 0, 16383);
    w.integer('eventSpeed.speedConfidence', l.eventSpeed.speedConfidence, 1, 127);
  }
  if (l.eventPositionHeading) {
    w.integer('eventPositionHeading.headingValue', l.eventPositionHeading.headingValue, 0, 3601);
    w.integer('eventPositionHeading.headingConfidence', l.eventPositionHeading.headingConfidence, 1, 127);
  }
  w.integer('traces size', l.traces.length, 1, 7);
  for (const path of l.traces) {
    w.integer('pathHistory size', path.length, 0, 40);
    for (const p of path) {
      w.bool(p.pathDeltaTime !== undefined);
      w.integer('deltaLatitude', p.deltaLatitude, -131071, 131072);
      w.integer('deltaLongitude', p.deltaLongitude, -131071, 131072);
      w.integer('deltaAltitude', p.deltaAltitude, -12700, 12800);
      if (p.pathDeltaTime !== undefined) w.integer('pathDeltaTime', p.pathDeltaTime, 1, 65535, true);
    }
  }
  if (l.roadType !== undefined) w.enumerated('roadType', l.roadType, 4);
}

/** Decodes a DENM; throws UperError for another message, a truncated one, or what this codec does not carry. */
export function decodeDenm(data: Uint8Array): Denm {
  const r = new BitReader(data);
  const protocolVersion = r.integer('protocolVersion', 0, 255);
  const messageId = r.integer('messageID', 0, 255);
  if (messageId !== DENM_MESSAGE_ID) throw new UperError(`messageID ${messageId} is not a DENM (${DENM_MESSAGE_ID})`);
  if (protocolVersion !== DENM_PROTOCOL_VERSION)
    throw new UperError(`DENM protocolVersion ${protocolVersion} is not ${DENM_PROTOCOL_VERSION}`);
  const stationId = r.integer('stationID', 0, 4294967295);
  const hasSituation = r.bool();
  const hasLocation = r.bool();
  if (r.bool()) throw new UperError('the alacarte container is not supported');
  const denm: Denm = { stationId, management: decodeManagement(r) };
  if (hasSituation) denm.situation = decodeSituation(r);
  if (hasLocation) denm.location = decodeLocation(r);
  return denm;
}

function decodeManagement(r: BitReader): ManagementContainer {
  r.noExtensions('managementContainer');
  const [hasTermination, hasDistance, hasDirection, hasValidity, hasInterval] = [r.bool(), r.bool(), r.bool(), r.bool(), r.bool()];
  const actionId = {
    originatingStationId: r.integer('originatingStationID', 0, 4294967295),
    sequenceNumber: r.integer('sequenceNumber', 0, 65535),
  };
  const detectionTime = r.integer('detectionTime', 0, MAX_TIMESTAMP_ITS);
  const referenceTime = r.integer('referenceTime', 0, MAX_TIMESTAMP_ITS);
  const termination = hasTermination ? r.enumerated('termination', 2) : undefined;
  const eventPosition = decodeReferencePosition(r);
  const m: ManagementContainer = {
    actionId,
    detectionTime,
    referenceTime,
    eventPosition,
    validityDuration: DEFAULT_VALIDITY_S,
    stationType: 0,
  };
  if (termination !== undefined) m.termination = termination;
  if (hasDistance) m.relevanceDistance = r.enumerated('relevanceDistance', 8);
  if (hasDirection) m.relevanceTrafficDirection = r.enumerated('relevanceTrafficDirection', 4);
  if (hasValidity) m.validityDuration = r.integer('validityDuration', 0, 86400);
  if (hasInterval) m.transmissionInterval = r.integer('transmissionInterval', 1, 10000);
  m.stationType = r.integer('stationType', 0, 255);
  return m;
}

function decodeCauseCode(r: BitReader, what: string): CauseCode {
  r.noExtensions(what);
  return { causeCode: r.integer(`${what}.causeCode`, 0, 255), subCauseCode: r.integer(`${what}.subCauseCode`, 0, 255) };
}

function decodeSituation(r: BitReader): SituationContainer {
  r.noExtensions('situationContainer');
  const hasLinked = r.bool();
  if (r.bool()) throw new UperError('eventHistory is not supported');
  const s: SituationContainer = { informationQuality: r.integer('informationQuality', 0, 7), eventType: decodeCauseCode(r, 'eventType') };
  if (hasLinked) s.linkedCause = decodeCauseCode(r, 'linkedCause');
  return s;
}

function decodeLocation(r: BitReader): LocationContainer {
  r.noExtensions('locationContainer');
  const [hasSpeed, hasHeading, hasRoadType] = [r.bool(), r.bool(), r.bool()];
  const l: LocationContainer = { traces: [] };
  if (hasSpeed)
    l.eventSpeed = {
      speedValue: r.integer('eventSpeed.speedValue', 0, 16383),
      speedConfidence: r.integer('eventSpeed.speedConfidence', 1, 127),
    };
  if (hasHeading)
    l.eventPositionHeading = {
      headingValue: r.integer('eventPositionHeading.headingValue', 0, 3601),
      headingConfidence: r.integer('eventPositionHeading.headingConfidence', 1, 127),
    };
  const traces = r.integer('traces size', 1, 7);
  for (let i = 0; i < traces; i++) {
    const count = r.integer('pathHistory size', 0, 40);
    const path: PathPoint[] = [];
    for (let j = 0; j < count; j++) {
      const hasTime = r.bool();
      const p: PathPoint = {
        deltaLatitude: r.integer('deltaLatitude', -131071, 131072),
        deltaLongitude: r.integer('deltaLongitude', -131071, 131072),
        deltaAltitude: r.integer('deltaAltitude', -12700, 12800),
      };
      if (hasTime) p.pathDeltaTime = r.integer('pathDeltaTime', 1, 65535, true);
      path.push(p);
    }
    l.traces.push(path);
  }
  if (hasRoadType) l.roadType = r.enumerated('roadType', 4);
  return l;
}

/** The RelevanceDistance class of a distance [m]: the first whose bound is at least it (over10km beyond). */
export function relevanceDistanceOf(metres: number): number {
  const i = RELEVANCE_DISTANCE_BOUNDS.findIndex((bound) => metres <= bound);
  return i < 0 ? RELEVANCE_DISTANCE_BOUNDS.length : i;
}
