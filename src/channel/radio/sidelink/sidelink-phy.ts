/**
 * The PHY abstraction: a transport block's block error rate against its SINR. The curve is the one
 * Gonzalez-Martin et al. (IEEE TVT 2019) take from 3GPP R1-160284 (DMRS enhancement of V2V): 190
 * bytes, QPSK at code rate 0.7, 280 km/h relative speed; linear in BLER between its points, 1 below
 * 0 dB, 1e-4 above 20 dB. Other code rates and modulations shift it by the SINR Shannon's capacity
 * asks of their spectral efficiency over that of the reference (an approximation docs/sidelink.md names).
 */
const CURVE_SINR_DB = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20];
const CURVE_BLER = [1, 0.9, 0.7, 0.4, 0.13, 0.045, 0.017, 0.007, 1e-3, 1e-3, 1e-3];
const FLOOR_BLER = 1e-4;
/**
 * The reference's spectral efficiency [bit per resource element]: QPSK at 0.726, LTE's MCS 9 on 10
 * data blocks (1544 bits and a 24-bit CRC over 10 x 108 elements; resource-pool.ts's codeRate).
 */
export const REFERENCE_EFFICIENCY = (2 * (1544 + 24)) / (10 * 108 * 2);

/**
 * The received power under which a car neither decodes a transmission's SCI nor its data: the
 * reference's sensing power threshold (-90.5 dBm over the message), which it also takes as the
 * receiver's sensitivity. Its losses are `below-sensitivity`.
 */
export const SENSITIVITY_DBM = -90.5;

/** BLER at `sinrDb` on the reference curve. */
export function referenceBler(sinrDb: number): number {
  if (sinrDb < CURVE_SINR_DB[0]) return 1;
  const last = CURVE_SINR_DB.length - 1;
  if (sinrDb > CURVE_SINR_DB[last]) return FLOOR_BLER;
  const i = Math.min(last - 1, Math.floor(sinrDb / 2));
  const f = (sinrDb - CURVE_SINR_DB[i]) / (CURVE_SINR_DB[i + 1] - CURVE_SINR_DB[i]);
  return CURVE_BLER[i] + f * (CURVE_BLER[i + 1] - CURVE_BLER[i]);
}

/** How many dB more SINR a transport block at `efficiency` bits per resource element needs than the reference (Shannon). */
export function shannonShiftDb(efficiency: number): number {
  return 10 * Math.log10((2 ** efficiency - 1) / (2 ** REFERENCE_EFFICIENCY - 1));
}

/** Block error rate of a transport block at `mcs` on `blocks` data blocks, received at `sinrDb`. */
export const blockErrorRate = (sinrDb: number, shiftDb: number) => referenceBler(sinrDb - shiftDb);
