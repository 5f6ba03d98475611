import { NR_CHANNEL_BLOCKS } from '../../../scenario/resolve-sidelink.js';
import type { SidelinkGrid } from './sidelink-grid.js';
import { SENSITIVITY_DBM, shannonShiftDb } from './sidelink-phy.js';

/**
 * The NR-V2X sidelink resource grid of a 20 MHz channel at 5.9 GHz (Rel-16, FR1): slots of
 * 1 ms / 2^mu at 15 x 2^mu kHz subcarrier spacing (TS 38.211 4.2, 4.3.2), the channel's resource
 * blocks at that spacing (TS 38.101-1 Table 5.3.2-1), split into subchannels of sl-SubchannelSize
 * blocks (TS 38.331 SL-ResourcePool), a message taking as many adjacent subchannels as its
 * transport block (TS 38.214 5.1.3.2, Table 5.1.3.1-1) needs, its PSCCH in its first subchannel.
 */

/**
 * Data resource elements of a block in a slot: 12 subcarriers x 9 symbols (14, less the first, a copy
 * for automatic gain control, the last, a guard, and 3 DMRS symbols; TS 38.211 8.1, 8.4.1.1).
 */
const DATA_ELEMENTS_PER_BLOCK = 12 * 9;
/** PSCCH: 3 symbols over the first subchannel's first 10 blocks (sl-TimeResourcePSCCH, sl-FreqResourcePSCCH). */
const PSCCH_ELEMENTS = 3 * 12 * 10;
/** TS 38.214 Table 5.1.3.1-1 (64QAM): modulation order and target code rate x 1024 of MCS 0-28. */
const MCS_TABLE: [number, number][] = [
  [2, 120],
  [2, 157],
  [2, 193],
  [2, 251],
  [2, 308],
  [2, 379],
  [2, 449],
  [2, 526],
  [2, 602],
  [2, 679],
  [4, 340],
  [4, 378],
  [4, 434],
  [4, 490],
  [4, 553],
  [4, 616],
  [4, 658],
  [6, 438],
  [6, 466],
  [6, 517],
  [6, 567],
  [6, 616],
  [6, 666],
  [6, 719],
  [6, 772],
  [6, 822],
  [6, 873],
  [6, 910],
  [6, 948],
];
/** TS 38.214 Table 5.1.3.2-1: the transport block sizes up to 3824 bits. */
const SMALL_TBS = [
  24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 208, 224, 240, 256, 272, 288, 304,
  320, 336, 352, 368, 384, 408, 432, 456, 480, 504, 528, 552, 576, 608, 640, 672, 704, 736, 768, 808, 848, 888, 928, 984, 1032, 1064, 1128,
  1160, 1192, 1224, 1256, 1288, 1320, 1352, 1416, 1480, 1544, 1608, 1672, 1736, 1800, 1864, 1928, 2024, 2088, 2152, 2216, 2280, 2408, 2472,
  2536, 2600, 2664, 2728, 2792, 2856, 2976, 3104, 3240, 3368, 3496, 3624, 3752, 3824,
];
/** CRC bits a transport block carries (TS 38.212 7.2.1). */
const CRC_BITS = 24;

export const slotSeconds = (numerology: number) => 0.001 / 2 ** numerology;

/** TS 38.214 5.1.3.2: the transport block size [bits] of `elements` data resource elements at `mcs`, one layer. */
export function nrTransportBlockBits(mcs: number, elements: number): number {
  const [qm, rate] = MCS_TABLE[mcs];
  const info = elements * (rate / 1024) * qm;
  if (info <= 0) return 0;
  if (info <= 3824) {
    const n = Math.max(3, Math.floor(Math.log2(info)) - 6);
    const quantised = Math.max(24, 2 ** n * Math.floor(info / 2 ** n));
    return SMALL_TBS.find((tbs) => tbs >= quantised) ?? 3824;
  }
  const n = Math.floor(Math.log2(info - 24)) - 5;
  const quantised = Math.max(3840, 2 ** n * Math.round((info - 24) / 2 ** n));
  const blocks = rate / 1024 <= 0.25 ? Math.ceil((quantised + 24) / 3816) : quantised > 8424 ? Math.ceil((quantised + 24) / 8424) : 1;
  return 8 * blocks * Math.ceil((quantised + 24) / (8 * blocks)) - 24;
}

/** An NR-V2X pool: `numerology`'s slots, subchannels of `subchannelSize` blocks (the channel's remainder unused), PSSCH at `mcs`. */
export class NrResourcePool implements SidelinkGrid {
  readonly slotS: number;
  readonly subchannels: number;
  readonly noiseBandwidthHz = 20e6;
  readonly subchannelNoiseShare: number;
  /** The LTE reference's sensitivity over its 2.16 MHz subchannel, scaled to this pool's subchannel bandwidth. */
  readonly sensitivityDbm: number;
  readonly exclusionRsrpDbm: number;
  private readonly channelBlocks: number;

  constructor(
    readonly numerology: number,
    readonly subchannelSize: number,
    readonly mcs: number,
  ) {
    this.slotS = slotSeconds(numerology);
    this.channelBlocks = NR_CHANNEL_BLOCKS[numerology];
    this.subchannels = Math.floor(this.channelBlocks / subchannelSize);
    this.subchannelNoiseShare = subchannelSize / this.channelBlocks;
    const subchannelHz = subchannelSize * 12 * 15e3 * 2 ** numerology;
    this.sensitivityDbm = SENSITIVITY_DBM + 10 * Math.log10(subchannelHz / (12 * 180e3));
    this.exclusionRsrpDbm = this.sensitivityDbm - 10 * Math.log10(12 * subchannelSize);
  }

  private dataElements(length: number): number {
    return length * this.subchannelSize * DATA_ELEMENTS_PER_BLOCK - PSCCH_ELEMENTS;
  }

  capacityBytes(length: number): number {
    return Math.floor(nrTransportBlockBits(this.mcs, this.dataElements(length)) / 8);
  }

  subchannelsFor(bytes: number): number | undefined {
    for (let length = 1; length <= this.subchannels; length++) if (this.capacityBytes(length) >= bytes) return length;
    return undefined;
  }

  noiseShare(length: number): number {
    return (length * this.subchannelSize) / this.channelBlocks;
  }

  shiftDb(length: number): number {
    const elements = this.dataElements(length);
    return shannonShiftDb((nrTransportBlockBits(this.mcs, elements) + CRC_BITS) / elements);
  }

  rsrpOffsetDb(length: number): number {
    return 10 * Math.log10(12 * length * this.subchannelSize);
  }
}
