/**
 * 802.11p air times: OFDM on a 10 MHz channel (IEEE 802.11-2016, clause 17, half-clocked), with the
 * MAC sizes ns-3 gives a cavsim datagram on an ad-hoc, non-QoS 802.11p device.
 */

export const SLOT_S = 13e-6;
export const SIFS_S = 32e-6;
/** DCF: AIFSN 2 for non-QoS data, so DIFS = SIFS + 2 slots. */
export const DIFS_S = SIFS_S + 2 * SLOT_S;
const PREAMBLE_S = 32e-6;
/** The SIGNAL field (L-SIG): one symbol, sent at the channel's lowest rate (3 Mb/s, BPSK 1/2). */
export const SIGNAL_FIELD_S = 8e-6;
export const SIGNAL_FIELD_BITS = 24;
export const PHY_HEADER_END_S = PREAMBLE_S + SIGNAL_FIELD_S;
const SYMBOL_S = 8e-6;
/** SERVICE field and tail bits around the PSDU. */
const SERVICE_AND_TAIL_BITS = 16 + 6;
/** An ACK (14 bytes) at 3 Mb/s: the air time EIFS leaves for one. */
const ACK_AT_LOWEST_RATE_S = frameAirTime(14, 3e6);
/** After a frame received in error a station waits EIFS instead of DIFS (802.11-2016 10.3.2.3.7). */
export const EIFS_S = SIFS_S + ACK_AT_LOWEST_RATE_S + DIFS_S;
/** ns-3's default time for preamble detection: a station senses a frame this long after it arrives. */
export const PREAMBLE_DETECTION_S = 4e-6;

/** What ns-3 adds to a cavsim datagram of `sizeBytes`: UDP/IPv4 (28), LLC/SNAP (8), MAC header (24), FCS (4). */
export const MAC_FRAME_OVERHEAD_BYTES = 28 + 8 + 24 + 4;

/** Seconds on the air of a PSDU of `psduBytes` at `rate` bit/s: preamble, SIGNAL and whole data symbols. */
export function frameAirTime(psduBytes: number, rate: number): number {
  const bitsPerSymbol = rate * SYMBOL_S;
  const symbols = Math.ceil((SERVICE_AND_TAIL_BITS + 8 * psduBytes) / bitsPerSymbol);
  return PHY_HEADER_END_S + symbols * SYMBOL_S;
}

export const SPEED_OF_LIGHT = 299792458;
