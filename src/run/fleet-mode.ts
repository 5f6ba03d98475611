import type { ResolvedScenario } from '../scenario/resolved.js';
import { RUN_FILES } from './run-files.js';

/** Up to this many cars a run writes v2v.csv unless told not to; above it, it counts outcomes instead (fleet recording). */
export const V2V_ROWS_MAX_CARS = 100;

/**
 * How a simulated run records V2V: `rows` writes one v2v.csv row (and MCAP message) per frame and
 * receiver; `fleet` counts outcomes by distance instead, keeps no per-pair figures, and writes no
 * v2v.csv, v2v.pcap or (unless asked for) run.mcap. `reason` says why, as the run prints it.
 */
export type V2vRecording = { mode: 'rows' } | { mode: 'fleet'; reason: string };

type RecordSettings = Pick<ResolvedScenario, 'vehicles'> & { record?: { scans?: boolean; v2v?: boolean } };

/** `record.v2v` when the scenario sets it, else rows up to V2V_ROWS_MAX_CARS cars. */
export function v2vRecording(scenario: RecordSettings): V2vRecording {
  const cars = scenario.vehicles.length;
  const set = scenario.record?.v2v;
  if (set === true || (set === undefined && cars <= V2V_ROWS_MAX_CARS)) return { mode: 'rows' };
  const why = set === false ? 'record.v2v is false' : `${cars} cars`;
  return { mode: 'fleet', reason: `${RUN_FILES.v2v} not written: ${why}; record.v2v: true writes one row per frame and receiver` };
}

/** What a fleet run leaves out beside v2v.csv, for its summary and its output. */
export const FLEET_LEFT_OUT = {
  files: [RUN_FILES.v2v, RUN_FILES.pcap, RUN_FILES.camPairs, RUN_FILES.channelBusy],
  perPair:
    'per-pair figures (pairs, v2v.pairs, v2v.beacon_age, v2v.cam, v2v.denm) need a record per frame and receiver; ' +
    'outcomes are counted by distance in delivery-distance.csv and v2v.delivery_by_distance',
} as const;

/** The line a fleet run prints when it starts. */
export function fleetNotice(recording: Extract<V2vRecording, { mode: 'fleet' }>, mcap: boolean): string {
  const files = [RUN_FILES.pcap, ...(mcap ? [] : [RUN_FILES.mcap])].join(', ');
  return `${recording.reason}; no ${files}${mcap ? '' : ' (record.mcap: true writes it)'} or per-pair V2V figures; outcomes counted by distance in ${RUN_FILES.deliveryDistance}`;
}
