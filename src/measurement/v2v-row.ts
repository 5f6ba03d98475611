import { numberOr } from './csv-log.js';

/**
 * A v2v.csv row as a reader of the file gets it back (numbers as written, to the microunit): what
 * run.mcap's V2V topics are made of, whether from the file or straight from the run.
 */
export interface V2VRowFields {
  id: string;
  from: string;
  to: string;
  type: string;
  sentS: number;
  /** Read only for a delivery. */
  receivedS: number;
  sizeBytes: number;
  /** 'delivered' or the loss reason. */
  outcome: string;
  /** NaN when not known. */
  distanceM: number;
  /** 1 clear, 0 blocked, -1 not known. */
  lineOfSight: 1 | 0 | -1;
  /** NaN when not known. */
  rxPowerDbm: number;
}

/** A row's fields from the text of its cells (a CSV file's, or a live run's appended lines). */
export function v2vRowFieldsFromText(get: (column: string) => string | undefined): V2VRowFields {
  const los = get('line_of_sight');
  return {
    id: get('id') ?? '',
    from: get('from') ?? '',
    to: get('to') ?? '',
    type: get('type') ?? '',
    sentS: Number(get('sent_s')),
    receivedS: Number(get('received_s')),
    sizeBytes: numberOr(get('size_bytes'), 0),
    outcome: get('outcome') ?? '',
    distanceM: numberOr(get('distance_m'), NaN),
    lineOfSight: los === 'true' || los === '1' ? 1 : los === 'false' || los === '0' ? 0 : -1,
    rxPowerDbm: numberOr(get('rx_power_dbm'), NaN),
  };
}
