/**
 * The LTE-V2X sidelink resource grid of a 10 MHz channel: 1 ms subframes (TS 36.211 4.1), 50
 * resource blocks split into subchannels (TS 36.331 SL-CommResourcePoolV2X sizeSubchannel,
 * numSubchannel), a message taking as many adjacent subchannels as its size needs at the MCS, with
 * its control (PSCCH, SCI format 1) in the first two blocks of its first subchannel (TS 36.213
 * 14.1.1.4C, adjacent PSCCH and PSSCH).
 */
import type { SidelinkGrid } from './sidelink-grid.js';
import { SENSITIVITY_DBM, shannonShiftDb } from './sidelink-phy.js';

export const SUBFRAME_S = 0.001;
/** Resource blocks in 10 MHz (TS 36.101 Table 5.6-1). */
export const CHANNEL_BLOCKS = 50;
/** PSCCH: two blocks of every transmission carry its SCI (TS 36.213 14.2.1). */
const PSCCH_BLOCKS = 2;
/** Resource elements a block carries data on in a subframe: 12 subcarriers x 9 symbols (14, less 4 DMRS and the last, a guard). */
export const DATA_ELEMENTS_PER_BLOCK = 12 * 9;
/** Bits the transport block's CRC adds (TS 36.212 5.3.2.1). */
const CRC_BITS = 24;

/**
 * TS 36.213 Table 7.1.7.2.1-1, its column for 10 blocks: the transport block size [bits] of each TBS
 * index 0-26. Other block counts are scaled from it in proportion (the table itself is within a few
 * per cent of proportional), so that a message's size and MCS give its blocks without the whole table.
 */
const TBS_10_BLOCKS = [
  256, 344, 424, 568, 696, 872, 1032, 1224, 1384, 1544, 1736, 1992, 2280, 2600, 2856, 3112, 3240, 3624, 4008, 4264, 4584, 4968, 5352, 5736,
  5992, 6200, 7480,
];

/** TS 36.213 Table 8.6.1-1, which PSSCH uses (14.1.1): MCS 0-10 QPSK with TBS index = MCS, 11-20 16QAM with MCS - 1. */
export function modulationOf(mcs: number): { bitsPerSymbol: number; tbsIndex: number } {
  return mcs <= 10 ? { bitsPerSymbol: 2, tbsIndex: mcs } : { bitsPerSymbol: 4, tbsIndex: mcs - 1 };
}

/** The transport block size [bits] of `blocks` data blocks at `mcs`. */
export function transportBlockBits(mcs: number, blocks: number): number {
  const { tbsIndex } = modulationOf(mcs);
  return Math.floor((TBS_10_BLOCKS[tbsIndex] * blocks) / 10 / 8) * 8;
}

/** The code rate of a full transport block on `blocks` data blocks: what the PHY's error curve depends on. */
export function codeRate(mcs: number, blocks: number): number {
  const { bitsPerSymbol } = modulationOf(mcs);
  return (transportBlockBits(mcs, blocks) + CRC_BITS) / (blocks * DATA_ELEMENTS_PER_BLOCK * bitsPerSymbol);
}

/** How many dB more SINR a transport block at `mcs` on `blocks` data blocks needs than the reference. */
export function sinrShiftDb(mcs: number, blocks: number): number {
  return shannonShiftDb(modulationOf(mcs).bitsPerSymbol * codeRate(mcs, blocks));
}

/** The subchannel geometry of an LTE-V2X pool, and how many subchannels a message of a given size takes. */
export class ResourcePool implements SidelinkGrid {
  readonly slotS = SUBFRAME_S;
  readonly noiseBandwidthHz = 10e6;
  readonly subchannelNoiseShare: number;
  readonly sensitivityDbm = SENSITIVITY_DBM;
  /** The reference's sensing threshold (-90.5 dBm over a one-subchannel message of 10 data blocks) per resource element. */
  readonly exclusionRsrpDbm = SENSITIVITY_DBM - 10 * Math.log10(12 * 10);
  /** Blocks per subchannel: the 50 blocks shared evenly (the remainder unused, as in the 4 x 12 highway pool). */
  readonly subchannelBlocks: number;

  constructor(
    readonly subchannels: number,
    readonly mcs: number,
  ) {
    this.subchannelBlocks = Math.floor(CHANNEL_BLOCKS / subchannels);
    this.subchannelNoiseShare = this.subchannelBlocks / CHANNEL_BLOCKS;
  }

  noiseShare(length: number): number {
    return this.dataBlocks(length) / CHANNEL_BLOCKS;
  }

  shiftDb(length: number): number {
    return sinrShiftDb(this.mcs, this.dataBlocks(length));
  }

  rsrpOffsetDb(length: number): number {
    return 10 * Math.log10(12 * this.dataBlocks(length));
  }

  /** Data blocks of a transmission over `length` subchannels. */
  dataBlocks(length: number): number {
    return length * this.subchannelBlocks - PSCCH_BLOCKS;
  }

  /** Bytes a transmission over `length` subchannels carries. */
  capacityBytes(length: number): number {
    return Math.floor(transportBlockBits(this.mcs, this.dataBlocks(length)) / 8);
  }

  /** The fewest adjacent subchannels a message of `bytes` fits in; undefined when even the whole channel is too small. */
  subchannelsFor(bytes: number): number | undefined {
    for (let length = 1; length <= this.subchannels; length++) if (this.capacityBytes(length) >= bytes) return length;
    return undefined;
  }
}
