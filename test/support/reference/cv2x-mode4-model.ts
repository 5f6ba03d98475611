/**
 * The analytical model of LTE-V2X (C-V2X) Mode 4 of Gonzalez-Martin, Sepulcre, Molina-Masegosa and
 * Gozalvez, "Analytical Models of the Performance of C-V2X Mode 4 Vehicular Communications", IEEE TVT
 * 68(2), 2019 (arXiv 1807.06508), written from the paper's equations (numbered as there) and the
 * parameters of its public implementation (msepulcre/C-V2X): cars on a line at `beta` per metre, each
 * sending `lambda` packets of 190 bytes a second on one of `subchannels` subchannels, WINNER+ B1
 * with 3 dB shadowing, -95 dBm of noise in 10 MHz, the R1-160284 BLER curve. It gives the PDR
 * against distance and the four loss types: half duplex, under the sensing threshold, propagation,
 * collision.
 */
export interface ModelParams {
  beta: number;
  lambda: number;
  txPowerDbm: number;
  subchannels: number;
}

export interface ModelCurve {
  distances: number[];
  pdr: number[];
  halfDuplex: number[];
  belowSensitivity: number[];
  propagation: number[];
  collision: number[];
  cbr: number;
}

const FC = 5.91e9;
const ANTENNA_M = 1.5;
const SIGMA_DB = 3;
const SENSING_DBM = -90.5;
/** 190 bytes on 10 of the 50 blocks (4 subchannels): the noise over the message's data blocks. */
const NOISE_DBM = -95 - 10 * Math.log10(50 / 10);
const NOISE_MW = 10 ** (NOISE_DBM / 10);
const CURVE_DB = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20];
const CURVE_BLER = [1, 0.9, 0.7, 0.4, 0.13, 0.045, 0.017, 0.007, 1e-3, 1e-3, 1e-3];

/** WINNER+ B1 line of sight with a free-space floor, as the model's get_PL_SH (environment height 0). */
export function modelPathLoss(distance: number): number {
  const d = Math.max(Math.abs(distance), 3);
  const breakpoint = (4 * ANTENNA_M * ANTENNA_M * FC) / 3e8;
  const winner =
    d < breakpoint
      ? 22.7 * Math.log10(d) + 27 + 20 * Math.log10(FC / 1e9)
      : 40 * Math.log10(d) + 7.56 - 2 * 17.3 * Math.log10(ANTENNA_M) + 2.7 * Math.log10(FC / 1e9);
  const free = 20 * Math.log10(d) + 46.4 + 20 * Math.log10(FC / 5e9);
  return Math.max(winner, free);
}

function bler(sinrDb: number): number {
  if (sinrDb < 0) return 1;
  if (sinrDb > 20) return 1e-4;
  const i = Math.min(9, Math.floor(sinrDb / 2));
  return CURVE_BLER[i] + ((sinrDb - CURVE_DB[i]) / 2) * (CURVE_BLER[i + 1] - CURVE_BLER[i]);
}

/** erf, Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7). */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

/** Probability the power received at `distance` is over `thresholdDbm` (Eq. 11, the PSR). */
const psr = (txDbm: number, distance: number, thresholdDbm: number) =>
  0.5 * (1 + erf((txDbm - modelPathLoss(distance) - thresholdDbm) / (SIGMA_DB * Math.SQRT2)));

/** Normal weights of a grid over +-5 sigma around `mean` in `step` dB, from `floor` up. */
function normalGrid(mean: number, step: number, floor = Number.NEGATIVE_INFINITY): { x: number[]; w: number[] } {
  const x: number[] = [];
  const w: number[] = [];
  for (let v = mean - 5 * SIGMA_DB; v <= mean + 5 * SIGMA_DB; v += step) {
    if (v < floor) continue;
    x.push(v);
    w.push(Math.exp(-((v - mean) ** 2) / (2 * SIGMA_DB * SIGMA_DB)));
  }
  const sum = w.reduce((a, b) => a + b, 0);
  return { x, w: w.map((v) => v / sum) };
}

/** Mean BLER of a signal at `signalDbm` (shadowed, seen only over the sensing threshold) against interference at `interferenceDbm` (shadowed) (Eqs. 13, 17). */
function meanBler(signalDbm: number, interferenceDbm: number | undefined): number {
  const signal = normalGrid(signalDbm, 0.1, SENSING_DBM);
  if (!signal.x.length) return 1;
  const interference = interferenceDbm === undefined ? { x: [Number.NEGATIVE_INFINITY], w: [1] } : normalGrid(interferenceDbm, 0.5);
  let p = 0;
  for (let j = 0; j < interference.x.length; j++) {
    const noiseDb = 10 * Math.log10(NOISE_MW + 10 ** (interference.x[j] / 10));
    for (let i = 0; i < signal.x.length; i++) p += signal.w[i] * interference.w[j] * bler(signal.x[i] - noiseDb);
  }
  return p;
}

/** Excluded resources (Eqs. 29 and 33) when a car senses `sensed` others over the threshold. */
function excluded(sensed: number, total: number): number {
  let sum = sensed / 2;
  for (let k = 1; k <= Math.floor(sensed / 2); k++) sum += Math.max(1 - k / (total - sensed / 2), 0);
  return sum;
}

export function cv2xMode4Model(p: ModelParams, distances: number[]): ModelCurve {
  const N = (p.subchannels * 1000) / p.lambda; // Eq. 28
  const Nc = 0.2 * N;
  const span = 1500;
  const psrAt = (threshold: number) => Array.from({ length: 2 * span + 1 }, (_, k) => psr(p.txPowerDbm, k - span, threshold));
  const PSR = psrAt(SENSING_DBM);
  const Spsr = p.beta * PSR.reduce((a, b) => a + b, 0); // Eq. 29.1
  const lags = Array.from({ length: 2 * span + 1 }, (_, lag) => {
    let r = 0;
    for (let x = 0; x + lag < PSR.length; x++) r += PSR[x] * PSR[x + lag];
    return r; // Eq. 30.2
  });
  const R0 = lags[0];
  const candidateOverlap = (Ne: number, Na: number) =>
    lags.map((r) => {
      const Ce = (r / R0) * ((p.beta * Ne * R0) / Spsr - (Ne * Ne) / N) + (Ne * Ne) / N; // Eq. 30
      return (N - 2 * Ne + Ce) * (Nc / Na) ** 2; // Eqs. 27, 26
    });

  // Step 2 alone (Eqs. 23, 29, 34)
  const Ne2 = excluded(Spsr, N);
  const cbr = Ne2 / N;
  const Cc2 = candidateOverlap(Ne2, N - Ne2);
  // Step 3: the threshold raised until 20 % remain (Eqs. 31-33), in 0.1 dB steps as the model does
  let threshold3 = SENSING_DBM;
  let Ne3 = 0;
  for (; ; threshold3 += 0.1) {
    Ne3 = excluded(2 * p.beta * psrAt(threshold3).reduce((a, b) => a + b, 0), N);
    if (N - Ne3 >= Nc) break;
  }
  const Cc3 = candidateOverlap(Ne3, N - Ne3);
  const alpha = cbr < 0.2 ? 0 : cbr <= 0.7 ? 2 * cbr - 0.4 : 1; // Eq. 22

  const reach = Math.round(1000 * p.beta) / p.beta;
  const interferers: number[] = [];
  for (let k = -Math.round(reach * p.beta); k <= Math.round(reach * p.beta); k++) if (k !== 0) interferers.push(k / p.beta);

  const curve: ModelCurve = { distances, pdr: [], halfDuplex: [], belowSensitivity: [], propagation: [], collision: [], cbr };
  for (const d of distances) {
    const signal = p.txPowerDbm - modelPathLoss(d);
    const hd = p.lambda / 1000; // Eq. 7
    const sen = 0.5 * (1 - erf((signal - SENSING_DBM) / (SIGMA_DB * Math.SQRT2))); // Eq. 10
    const pro = meanBler(signal, undefined); // Eq. 13
    let keep2 = 1;
    let keep3 = 1;
    for (const toRx of interferers) {
      const interference = p.txPowerDbm - modelPathLoss(toRx);
      // interferers whose power stays 20 dB under the noise change nothing
      const pInt = pro >= 1 || interference + 5 * SIGMA_DB < NOISE_DBM - 20 ? 0 : (meanBler(signal, interference) - pro) / (1 - pro); // Eq. 18
      if (pInt <= 0) continue;
      const toTx = Math.abs(toRx + d);
      const lag = Math.min(Math.round(toTx), lags.length - 1);
      const ps2 = 1 - (1 - 1 / p.lambda) * psr(p.txPowerDbm, toTx, SENSING_DBM); // Eq. 24
      const ps3 = 1 - (1 - 1 / p.lambda) * psr(p.txPowerDbm, toTx, threshold3);
      keep2 *= 1 - ((ps2 * Cc2[lag]) / (Nc * Nc)) * pInt; // Eqs. 23, 15, 14
      keep3 *= 1 - ((ps3 * Cc3[lag]) / (Nc * Nc)) * pInt; // Eq. 31
    }
    const clear = (1 - hd) * (1 - sen) * (1 - pro);
    const col = alpha * (1 - keep2) * clear + (1 - alpha) * (1 - keep3) * clear; // Eqs. 6.4, 6.5, 21
    const senFinal = sen * (1 - hd); // Eq. 6.2
    const proFinal = pro * (1 - hd) * (1 - sen); // Eq. 6.3
    curve.halfDuplex.push(hd);
    curve.belowSensitivity.push(senFinal);
    curve.propagation.push(proFinal);
    curve.collision.push(col);
    curve.pdr.push(1 - hd - senFinal - proFinal - col); // Eq. 6
  }
  return curve;
}
