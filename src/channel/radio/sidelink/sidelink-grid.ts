import type { WifiNetwork } from '../../../scenario/resolved.js';

/**
 * What the sidelink engine needs of a technology's resource grid: how long a slot lasts, how many
 * subchannels a slot has, what a message on `length` adjacent subchannels carries and costs, and the
 * powers its receivers decide by. LTE-V2X's (resource-pool.ts) and NR-V2X's (nr-resource-pool.ts)
 * implement it.
 */
export interface SidelinkGrid {
  /** Slot (LTE: subframe) duration [s]. */
  readonly slotS: number;
  readonly subchannels: number;
  /** Bandwidth the channel's thermal noise is computed over [Hz]. */
  readonly noiseBandwidthHz: number;
  /** Share of the channel's noise one subchannel gets. */
  readonly subchannelNoiseShare: number;
  /** The received power under which a car decodes neither the SCI nor the data [dBm]. */
  readonly sensitivityDbm: number;
  /** The PSSCH-RSRP (per resource element) over which a reservation excludes a candidate, before it is raised [dBm]. */
  readonly exclusionRsrpDbm: number;
  /** Bytes a transmission over `length` subchannels carries. */
  capacityBytes(length: number): number;
  /** The fewest adjacent subchannels `bytes` fit in; undefined when the whole slot is too small. */
  subchannelsFor(bytes: number): number | undefined;
  /** Share of the channel's noise over the data of a message on `length` subchannels. */
  noiseShare(length: number): number;
  /** How much more SINR a message on `length` subchannels needs than the reference curve [dB]. */
  shiftDb(length: number): number;
  /** Received power less PSSCH-RSRP (power per data resource element) of a message on `length` subchannels [dB]. */
  rsrpOffsetDb(length: number): number;
}

/** What the engine runs, per technology: its grid, its MAC's settings, and the radio's propagation and noise. */
export interface SidelinkConfig {
  channel: 'lte-v2x' | 'nr-v2x';
  grid: SidelinkGrid;
  /** Reservation interval [s]; also the packet delay budget, at most 100 ms. */
  rri: number;
  keepProbability: number;
  /** sps: a reservation every `rri` (TS 36.321 5.14.1.1, TS 38.321 5.22.1.1); dynamic: a new resource for every packet (NR only). */
  scheduling: 'sps' | 'dynamic';
  /** Blind retransmissions of every transport block, each on its own slot (NR only). */
  retransmissions: number;
  /** LTE: the random choice among the 20 % of candidates with the lowest S-RSSI; NR: among every candidate left. */
  rankByRssi: boolean;
  /** Sensing window [s] (TS 36.213 14.1.1.6: 1 s; TS 38.214 8.1.4: 1.1 s). */
  sensingWindow: number;
  /** The propagation keys both radios share, and the receiver noise over the channel [dBm] (absent: thermal plus noiseFigure). */
  propagation: WifiNetwork;
  noiseFloor?: number;
}
