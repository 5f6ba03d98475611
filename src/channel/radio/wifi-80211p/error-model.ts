import {
  LARGE_FRAME_TABLE_BYTES,
  PER_TABLES_32_BYTES,
  PER_TABLES_1458_BYTES,
  SMALL_FRAME_TABLE_BYTES,
  type SnrPerTable,
} from './error-rate-tables.js';

/**
 * How likely a stretch of a frame at constant SINR decodes, the way ns-3's TableBasedErrorRateModel
 * does it: SNR rounded to 0.01 dB, PER interpolated linearly in the table of the modulation and coding,
 * the 32-byte table for stretches under 400 bytes (else 1458), scaled to the stretch's size by
 * 1 - (1 - PER)^(bytes / table bytes).
 */

const SIZE_THRESHOLD_BYTES = 400;
/** BPSK 3/4 (4.5 Mb/s) has no table: QPSK 3/4's, 3 dB lower (half the bits per symbol at the same code rate). */
const BPSK_3_4_OFFSET_DB = -3;

export interface Coding {
  /** Index into the tables (the HT MCS of the same modulation and code rate). */
  table: number;
  offsetDb: number;
  /**
   * A linear SINR above which both tables give PER 0 (0.02 dB past their last entry, which survives
   * the rounding to 0.01 dB): every stretch decodes, with no logarithm or table to look at.
   */
  surelyDecodesSinr: number;
}

function codingFor(table: number, offsetDb: number): Coding {
  const lastSnrDb = (t: SnrPerTable) => t[t.length - 1][0];
  const decodesAboveDb = Math.max(lastSnrDb(PER_TABLES_32_BYTES[table]), lastSnrDb(PER_TABLES_1458_BYTES[table]));
  return { table, offsetDb, surelyDecodesSinr: 10 ** ((decodesAboveDb + offsetDb + 0.02) / 10) };
}

/** The coding of each 802.11p rate on 10 MHz [bit/s]. */
export function codingOf(rate: number): Coding {
  const byRate: Record<number, Coding> = {
    3e6: codingFor(0, 0),
    4.5e6: codingFor(2, BPSK_3_4_OFFSET_DB),
    6e6: codingFor(1, 0),
    9e6: codingFor(2, 0),
    12e6: codingFor(3, 0),
    18e6: codingFor(4, 0),
    24e6: codingFor(5, 0),
    27e6: codingFor(6, 0),
  };
  const coding = byRate[rate];
  if (!coding) throw new RangeError(`${rate / 1e6} Mb/s is not an 802.11p rate on 10 MHz`);
  return coding;
}

export const SIGNAL_FIELD_CODING: Coding = codingFor(0, 0);

function tablePer(table: SnrPerTable, snrDb: number): number {
  if (snrDb < table[0][0]) return 1;
  const last = table[table.length - 1];
  if (snrDb > last[0]) return 0;
  let i = 1;
  while (table[i][0] < snrDb) i++;
  const [s1, p1] = table[i];
  if (s1 === snrDb) return p1;
  const [s0, p0] = table[i - 1];
  return p0 + ((snrDb - s0) * (p1 - p0)) / (s1 - s0);
}

/** SNR above which every table gives PER 0: no need to look. */
const ALWAYS_DECODES_DB = Math.max(...[...PER_TABLES_32_BYTES, ...PER_TABLES_1458_BYTES].map((t) => t[t.length - 1][0]));

/** Probability that `bits` sent with `coding` at a linear SINR `sinr` all decode. */
export function chunkSuccess(coding: Coding, sinr: number, bits: number): number {
  if (bits <= 0 || sinr >= coding.surelyDecodesSinr) return 1;
  const snrDb = Math.round((10 * Math.log10(sinr) - coding.offsetDb) * 100) / 100;
  if (snrDb > ALWAYS_DECODES_DB) return 1;
  const bytes = Math.max(1, Math.floor(bits / 8));
  const small = bytes < SIZE_THRESHOLD_BYTES;
  const table = (small ? PER_TABLES_32_BYTES : PER_TABLES_1458_BYTES)[coding.table];
  const per = tablePer(table, snrDb);
  const tableBytes = small ? SMALL_FRAME_TABLE_BYTES : LARGE_FRAME_TABLE_BYTES;
  return bytes === tableBytes ? 1 - per : (1 - per) ** (bytes / tableBytes);
}
