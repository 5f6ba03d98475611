/**
 * Reference model for the builtin 802.11p engine (issue 48): the analytical model of
 *
 *   M. Sepulcre, M. Gonzalez-Martín, J. Gozalvez, R. Molina-Masegosa, B. Coll-Perales,
 *   "Analytical Models of the Performance of IEEE 802.11p Vehicle to Vehicle Communications",
 *   IEEE Transactions on Vehicular Technology 71(1), 2022 (online Nov. 2021). DOI 10.1109/TVT.2021.3124708.
 *   Post-print: arXiv:2104.07923. Authors' MATLAB code: github.com/msepulcre/IEEE802.11p-model.
 *
 * Written here from the paper's equations (numbers in brackets, "(n)", are the paper's equation numbers,
 * as the authors' code labels them); no code is copied. Numbers marked [code] are the defaults of the
 * authors' MATLAB code (model80211p.m, get_PL_SH.m, get_FER.m, get_SINRdistribution.m), which are the
 * paper's evaluation settings.
 *
 * Scenario: a highway, vehicles on a line at a fixed spacing 1/beta, every vehicle broadcasting
 * `beaconRateHz` packets a second with the same power, rate and size. For a transmitter-receiver distance d
 * the model gives the paper's four packet-loss probabilities, taken in this order:
 *
 *   SEN  the received signal is below the sensing (preamble-detection) threshold: the packet is not even seen;
 *   RXB  "receiver busy": the receiver is already locked on another packet when this one starts
 *        (a hidden terminal, or a concurrent transmission that started in the same slot and arrives closer);
 *   PRO  propagation: the packet is sensed, but its SNR alone (no interference) is too low to decode it;
 *   COL  collision: the packet would decode on its SNR, but interference from an overlapping packet
 *        (hidden terminal, or a concurrent same-slot transmission) drops the SINR below what it needs.
 *
 * The receiver's own transmissions (half duplex) are not one of the paper's losses: the receiver is left out of
 * the interferers, and with CSMA it defers to a transmitter it senses except in the same slot.
 *
 * Each later loss is counted only among the packets that escaped the earlier ones, (3)-(6), so the four add up:
 * PDR = 1 - SEN - RXB - PRO - COL (1) = (1 - SEN')(1 - RXB')(1 - PRO')(1 - COL'), with the primed conditional
 * probabilities of (12), (14), (24), (26).
 */

/** Parameters of the model. Every default is the authors' code's [code] and the paper's highway setting. */
export interface Sepulcre80211pParams {
  /** Traffic density beta [veh/km]; the paper evaluates 60 and 120 veh/km (0.06 and 0.12 veh/m). */
  densityVehPerKm: number;
  /** Packet transmission frequency lambda [Hz]; the paper: 10 and 25 Hz. */
  beaconRateHz: number;
  /** Transmission power Pt [dBm]; the paper: 15, 23 and 30 dBm (23 in the main figures). */
  txPowerDbm: number;
  /** Packet size B [bytes] (payload); the paper: 190 and 500 bytes. */
  packetBytes: number;
  /** Data rate Rd [bit/s]; the paper: 6, 18 and 27 Mb/s (QPSK 1/2, 16-QAM 3/4 and 64-QAM 3/4 in 10 MHz). */
  dataRateBps: number;
  /** MAC+LLC headers added to B, H [bytes]: 30 [code: "length of headers in Omnet++ approx"]. */
  headerBytes: number;
  /** Preamble + SIGNAL field [s]: 32 us + 8 us = 40 us [code, 802.11-2012 p. 1588/1591]. */
  preambleSignalS: number;
  /** Channel bandwidth BW [Hz]: 10 MHz [code]. */
  bandwidthHz: number;
  /** Background noise in 10 MHz with a 9 dB noise figure [dBm]: -95 [code]. */
  noiseDbm: number;
  /** Sensing (carrier-sense / preamble-detection) threshold Psen [dBm]: -85 [code]. */
  sensingThresholdDbm: number;
  /** aSlotTime sigma [s]: 13 us, 802.11-2012 10 MHz OFDM [code]. The model's only MAC timing input. */
  slotTimeS: number;
  /** Carrier frequency fc [Hz]: 5.89 GHz [code get_PL_SH.m]. */
  carrierHz: number;
  /** Antenna heights of transmitter and receiver [m]: 1.5 [code get_PL_SH.m]. */
  antennaHeightM: number;
  /** Average environment height [m]: 0.5 [code get_PL_SH.m]; the effective antenna height is 1.5 - 0.5 = 1 m. */
  environmentHeightM: number;
  /** Log-normal shadowing standard deviation [dB]: 3, both before and after the breakpoint [code get_PL_SH.m]. */
  shadowingSigmaDb: number;
  /** Step of the discretised SNR/SINR densities [dB]: 0.1 [code]. */
  stepDb: number;
  /** Interferers considered up to this distance from the receiver [m]: 1000 [code]. */
  interferenceRangeM: number;
  /** Half-width of the PSR profile summed for the CBR, (34), and auto-correlated, (20) [m]: 1500 [code]. */
  psrRangeM: number;
  /** Transmitter-receiver distances evaluated [m]: 0:25:500 [code]. */
  distancesM: readonly number[];
}

/** The authors' code's settings [code]; density, rate, power, size and rate are set per configuration. */
export const SEPULCRE_DEFAULTS: Sepulcre80211pParams = {
  densityVehPerKm: 60,
  beaconRateHz: 10,
  txPowerDbm: 23,
  packetBytes: 190,
  dataRateBps: 6e6,
  headerBytes: 30,
  preambleSignalS: 40e-6,
  bandwidthHz: 10e6,
  noiseDbm: -95,
  sensingThresholdDbm: -85,
  slotTimeS: 13e-6,
  carrierHz: 5.89e9,
  antennaHeightM: 1.5,
  environmentHeightM: 0.5,
  shadowingSigmaDb: 3,
  stepDb: 0.1,
  interferenceRangeM: 1000,
  psrRangeM: 1500,
  distancesM: Array.from({ length: 21 }, (_, i) => 25 * i),
};

/** The paper's two highway configurations (run_all.m): low load 60 veh/km at 10 Hz, high load 120 veh/km at 25 Hz. */
export const HIGHWAY_60_VEH_KM_10HZ: Sepulcre80211pParams = { ...SEPULCRE_DEFAULTS, densityVehPerKm: 60, beaconRateHz: 10 };
export const HIGHWAY_120_VEH_KM_25HZ: Sepulcre80211pParams = { ...SEPULCRE_DEFAULTS, densityVehPerKm: 120, beaconRateHz: 25 };
/** 120 veh/km at 10 Hz: the density alone doubled (also simulated in the paper's repository). */
export const HIGHWAY_120_VEH_KM_10HZ: Sepulcre80211pParams = { ...SEPULCRE_DEFAULTS, densityVehPerKm: 120, beaconRateHz: 10 };

export interface Sepulcre80211pResult {
  distancesM: number[];
  /** Packet Delivery Ratio, (1). */
  pdr: number[];
  /** The four losses as fractions of all packets, (3)-(6); pdr + sen + rxb + pro + col = 1. */
  sen: number[];
  rxb: number[];
  pro: number[];
  col: number[];
  /** The conditional probabilities the four are built from: (12), (14), (24), (26). */
  senGiven: number[];
  rxbGiven: number[];
  proGiven: number[];
  colGiven: number[];
  /**
   * Diagnostics, not outputs of the paper: RXB' and COL' with only the hidden-terminal terms ((16), (28)) or only
   * the concurrent-transmission terms ((21), (32)) in the product of (14)/(26). They do not add up to RXB'/COL'.
   */
  rxbHiddenGiven: number[];
  rxbConcurrentGiven: number[];
  colHiddenGiven: number[];
  colConcurrentGiven: number[];
  /** Channel Busy Ratio, (35), and the uncorrected (34). */
  cbr: number;
  cbrUncorrected: number;
  /** Packet duration Ttr [s]. */
  packetDurationS: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Numerics

/** erf to about 1e-14: Maclaurin series below 2.5, Lentz continued fraction for erfc above. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return -erf(-x);
  if (x < 2.5) {
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= (-x * x) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  return 1 - erfcLarge(x);
}

/** erfc(x) for x >= 2.5: erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))). */
function erfcLarge(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? tiny : 1 / d;
    c = x + a / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** Probability that a log-normal received power (mean `meanDbm`, sigma) is at or above `thresholdDbm`. */
function probAbove(meanDbm: number, sigmaDb: number, thresholdDbm: number): number {
  return 0.5 * (1 + erf((meanDbm - thresholdDbm) / (sigmaDb * Math.SQRT2)));
}

// ---------------------------------------------------------------------------------------------------------------
// Propagation: WINNER+ B1 line-of-sight with a free-space floor [code get_PL_SH.m; the paper's propagation model]

/** Breakpoint distance d'BP = 4 h'BS h'MS fc / c with effective heights h' = h - h_env [m]; 78.5 m at the defaults. */
export function breakpointM(p: Sepulcre80211pParams): number {
  const h = p.antennaHeightM - p.environmentHeightM;
  return (4 * h * h * p.carrierHz) / 3e8;
}

/**
 * Median path loss [dB] at distance d [m] (|d|, clamped to 3 m):
 *   d < d'BP:  PL = 22.7 log10 d + 27 + 20 log10(fc/GHz)
 *   d >= d'BP: PL = 40 log10 d + 7.56 - 17.3 log10 h'BS - 17.3 log10 h'MS + 2.7 log10(fc/GHz)
 * and never below free space, PLfs = 20 log10 d + 46.4 + 20 log10(fc/5 GHz).
 */
export function pathLossDb(distanceM: number, p: Sepulcre80211pParams): number {
  const d = Math.max(Math.abs(distanceM), 3);
  const fGHz = p.carrierHz / 1e9;
  const h = p.antennaHeightM - p.environmentHeightM;
  const winner =
    d < breakpointM(p)
      ? 22.7 * Math.log10(d) + 27 + 20 * Math.log10(fGHz)
      : 40 * Math.log10(d) + 7.56 - 17.3 * Math.log10(h) - 17.3 * Math.log10(h) + 2.7 * Math.log10(fGHz);
  const free = 20 * Math.log10(d) + 46.4 + 20 * Math.log10(fGHz / 5);
  return free > winner ? free : winner;
}

/** PSR(d), (13): probability that a packet from distance d is received above the sensing threshold. */
export function packetSensingRatio(distanceM: number, p: Sepulcre80211pParams): number {
  return probAbove(p.txPowerDbm - pathLossDb(distanceM, p), p.shadowingSigmaDb, p.sensingThresholdDbm);
}

// ---------------------------------------------------------------------------------------------------------------
// PHY: frame error rate against Eb/N0 [code get_FER.m: Goubet et al., IEEE TVT 64(9) 2015, Fig. 14, L = 1]

const FER_EBNO_DB = [0, 5, 10, 15, 20, 25, 30, 35];
const FER_VALUE = [1, 1, 0.4, 1.5e-2, 4e-3, 3e-3, 2e-3, 1e-3];

/**
 * Frame error rate at a given Eb/N0 [dB]: linear interpolation in the table above, 1 below 0 dB and 1e-3 (the
 * curve's floor) above 35 dB. Eb/N0 = SINR + 10 log10(BW/Rd). The same curve is used for every data rate.
 */
export function frameErrorRate(ebNoDb: number): number {
  if (ebNoDb <= FER_EBNO_DB[0]) return FER_VALUE[0];
  const last = FER_EBNO_DB.length - 1;
  if (ebNoDb >= FER_EBNO_DB[last]) return FER_VALUE[last];
  let k = 0;
  while (ebNoDb > FER_EBNO_DB[k + 1]) k++;
  const t = (ebNoDb - FER_EBNO_DB[k]) / (FER_EBNO_DB[k + 1] - FER_EBNO_DB[k]);
  return FER_VALUE[k] + t * (FER_VALUE[k + 1] - FER_VALUE[k]);
}

/**
 * Mean frame error rate over the distribution of the SINR (or SNR), (24) and (30), discretised as the paper does:
 * received power Pr ~ N(prMean, sigma) in dB on a 0.1 dB grid over [-200, 200] dBm, kept only at or above the
 * sensing threshold (only sensed packets are decoded) and renormalised; interference-plus-noise I + N, with
 * I ~ N(piMean, sigma) in dB, has density f(x) = 10^(x/10) / ((10^(x/10) - N) sigma sqrt(2 pi))
 * exp(-(10 log10(10^(x/10) - N) - piMean)^2 / (2 sigma^2)) for x > N (all mass at N when there is no interferer).
 * SINR = Pr - (I + N) in dB, so E[FER] = sum_j sum_k fPr(x_j) fIN(x_k) FER(x_j - x_k + 10 log10(BW/Rd)) / norms.
 */
class FerAverager {
  private readonly grid: Float64Array;
  private readonly ferByLag: Float64Array; // FER at SINR = lag * step, lag = -(n-1) .. n-1
  private readonly n: number;
  private readonly noiseLin: number;
  private readonly noiseIndex: number;

  constructor(private readonly p: Sepulcre80211pParams) {
    const step = p.stepDb;
    this.n = Math.round(400 / step) + 1;
    this.grid = new Float64Array(this.n);
    for (let j = 0; j < this.n; j++) this.grid[j] = -200 + j * step;
    const offset = 10 * Math.log10(p.bandwidthHz / p.dataRateBps);
    this.ferByLag = new Float64Array(2 * this.n - 1);
    for (let m = 0; m < 2 * this.n - 1; m++) this.ferByLag[m] = frameErrorRate(-400 + m * step + offset);
    this.noiseLin = 10 ** (p.noiseDbm / 10);
    this.noiseIndex = Math.round((p.noiseDbm + 200) / step);
  }

  /** Weights of the received power of the wanted signal (sensed part only), and their index range. */
  signal(prMeanDbm: number): { w: Float64Array; lo: number; hi: number } {
    const { sensingThresholdDbm: psen, shadowingSigmaDb: s } = this.p;
    return this.weights((x) => (x < psen ? 0 : Math.exp(-((x - prMeanDbm) ** 2) / (2 * s * s))));
  }

  /** Weights of interference-plus-noise power. */
  interference(piMeanDbm: number): { w: Float64Array; lo: number; hi: number } {
    const s = this.p.shadowingSigmaDb;
    const noiseDbm = this.p.noiseDbm;
    return this.weights((x) => {
      if (x <= noiseDbm) return 0;
      const v = 10 ** (x / 10);
      const iDbm = 10 * Math.log10(v - this.noiseLin);
      return (v / (v - this.noiseLin)) * Math.exp(-((iDbm - piMeanDbm) ** 2) / (2 * s * s));
    });
  }

  /** Noise only: all the mass on the grid point of N. */
  noiseOnly(): { w: Float64Array; lo: number; hi: number } {
    const w = new Float64Array(this.n);
    w[this.noiseIndex] = 1;
    return { w, lo: this.noiseIndex, hi: this.noiseIndex };
  }

  /** Densities far in the tails (below 1e-30 of the peak) carry no weight at double precision; skip them. */
  private weights(f: (x: number) => number): { w: Float64Array; lo: number; hi: number } {
    const w = new Float64Array(this.n);
    let max = 0;
    for (let j = 0; j < this.n; j++) {
      w[j] = f(this.grid[j]);
      if (w[j] > max) max = w[j];
    }
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi && w[lo] <= max * 1e-30) lo++;
    while (hi > lo && w[hi] <= max * 1e-30) hi--;
    return { w, lo, hi };
  }

  mean(sig: { w: Float64Array; lo: number; hi: number }, int: { w: Float64Array; lo: number; hi: number }): number {
    let num = 0;
    let sumS = 0;
    let sumI = 0;
    for (let k = int.lo; k <= int.hi; k++) sumI += int.w[k];
    const base = this.n - 1;
    for (let j = sig.lo; j <= sig.hi; j++) {
      const a = sig.w[j];
      if (a === 0) continue;
      sumS += a;
      let inner = 0;
      for (let k = int.lo; k <= int.hi; k++) inner += int.w[k] * this.ferByLag[j - k + base];
      num += a * inner;
    }
    return num / (sumS * sumI);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The model

/** Packet duration Ttr = 40 us + (B + H) * 8 / Rd (802.11-2012: preamble 32 us, SIGNAL 8 us, then the data). */
export function packetDurationS(p: Sepulcre80211pParams): number {
  return p.preambleSignalS + ((p.packetBytes + p.headerBytes) * 8) / p.dataRateBps;
}

/** CBR, (34) and (35): the load sensed, corrected by the paper's fit to simulation for high load. */
export function channelBusyRatio(p: Sepulcre80211pParams): { cbr: number; cbrUncorrected: number } {
  const beta = p.densityVehPerKm / 1000;
  let psrSum = 0; // sum over d = -1500..1500 m in 1 m steps: the expected sensed length of road [m]
  for (let d = -p.psrRangeM; d <= p.psrRangeM; d++) psrSum += packetSensingRatio(d, p);
  const u = beta * p.beaconRateHz * packetDurationS(p) * psrSum; // (34)
  return { cbrUncorrected: u, cbr: -0.2481 * u * u + 0.913 * u + 0.003844 }; // (35)
}

/**
 * Normalised autocorrelation of the PSR profile, (20): R(k) = sum_x PSR(x) PSR(x + k) / sum_x PSR(x)^2 for
 * lags k = 0 .. 2 * psrRange [m]. CBR * R(|d|) is the probability that two vehicles d apart both sense the channel
 * busy: it scales how often a vehicle gets to transmit while another, d away, is silent or busy, (16), (18), (22).
 */
function psrAutocorrelation(p: Sepulcre80211pParams): Float64Array {
  const n = 2 * p.psrRangeM + 1;
  const psr = new Float64Array(n);
  for (let i = 0; i < n; i++) psr[i] = packetSensingRatio(i - p.psrRangeM, p);
  const r = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let s = 0;
    for (let i = 0; i + k < n; i++) s += psr[i] * psr[i + k];
    r[k] = s;
  }
  const r0 = r[0];
  for (let k = 0; k < n; k++) r[k] /= r0;
  return r;
}

/** Positions of the interferers relative to the receiver [m]: every 1/beta up to the interference range, receiver left out. */
function interfererPositions(p: Sepulcre80211pParams): number[] {
  const beta = p.densityVehPerKm / 1000;
  const perSide = Math.round(p.interferenceRangeM * beta);
  const lMax = perSide / beta;
  const spacing = 1 / beta;
  const out: number[] = [];
  for (let i = 0; i <= 2 * perSide; i++) {
    if (i === perSide) continue; // the receiver itself
    out.push(i === 2 * perSide ? lMax : -lMax + i * spacing);
  }
  return out;
}

/** PDR, the four losses and the CBR for every distance in `p.distancesM`. */
export function sepulcre80211p(p: Sepulcre80211pParams): Sepulcre80211pResult {
  const sigma = p.shadowingSigmaDb;
  const psen = p.sensingThresholdDbm;
  const ttr = packetDurationS(p);
  const lambda = p.beaconRateHz;
  const { cbr, cbrUncorrected } = channelBusyRatio(p);
  const rPsr = psrAutocorrelation(p);
  const fer = new FerAverager(p);
  const noise = fer.noiseOnly();
  const interferers = interfererPositions(p);
  // (I + N) weights depend only on the interferer's distance to the receiver: build each once.
  const intWeights = new Map<number, ReturnType<FerAverager['interference']>>();
  const interferenceOf = (pl: number) => {
    let w = intWeights.get(pl);
    if (!w) intWeights.set(pl, (w = fer.interference(p.txPowerDbm - pl)));
    return w;
  };

  const out: Sepulcre80211pResult = {
    distancesM: [...p.distancesM],
    pdr: [],
    sen: [],
    rxb: [],
    pro: [],
    col: [],
    senGiven: [],
    rxbGiven: [],
    proGiven: [],
    colGiven: [],
    rxbHiddenGiven: [],
    rxbConcurrentGiven: [],
    colHiddenGiven: [],
    colConcurrentGiven: [],
    cbr,
    cbrUncorrected,
    packetDurationS: ttr,
  };

  for (const dist of p.distancesM) {
    const d = Math.abs(dist);
    const plTxRx = pathLossDb(d, p);
    const prMean = p.txPowerDbm - plTxRx;
    // (12): the received power is below the sensing threshold.
    const senGiven = 1 - probAbove(prMean, sigma, psen);
    // (24): sensed, but the SNR fails the FER curve.
    const signal = fer.signal(prMean);
    const proGiven = fer.mean(signal, noise);
    // pSINR per interferer distance to the receiver (shared by the two sides of the receiver).
    const pSinrCache = new Map<number, number>();

    let keepRxb = 1;
    let keepCol = 1;
    let keepRxbHt = 1;
    let keepRxbCt = 1;
    let keepColHt = 1;
    let keepColCt = 1;
    for (const x of interferers) {
      const dIntRx = Math.abs(x);
      const dIntTx = Math.abs(x + d);
      const plIntRx = pathLossDb(dIntRx, p);
      const plIntTx = pathLossDb(dIntTx, p);

      // (30)-(31): probability that interferer i alone breaks a packet that would have decoded on its SNR.
      let pInt = 0;
      if (proGiven !== 1) {
        let pSinr = pSinrCache.get(plIntRx);
        if (pSinr === undefined) pSinrCache.set(plIntRx, (pSinr = fer.mean(signal, interferenceOf(plIntRx)))); // (30)
        pInt = (pSinr - proGiven) / (1 - proGiven); // (31)
      }
      const pDetIntRx = probAbove(p.txPowerDbm - plIntRx, sigma, psen); // the receiver senses interferer i
      const pDetIntTx = probAbove(p.txPowerDbm - plIntTx, sigma, psen); // interferer i and the transmitter sense each other
      const busyBoth = 1 - cbr * rPsr[Math.round(dIntTx)];

      const pSimCt = (p.slotTimeS * lambda * pDetIntTx) / busyBoth; // (22): i starts in the same slot as the transmitter
      const pRxbCt = dIntRx < d ? pSimCt * pDetIntRx : 0; // (21): ... and, closer, locks the receiver first
      const pRxbHt = (ttr * lambda * pDetIntRx * (1 - pDetIntTx)) / busyBoth; // (16): hidden i already on air at the receiver
      const pColCt = dIntRx >= d ? pInt * pSimCt : 0; // (32): same-slot i, not closer, interferes
      const pSimHt = (ttr * lambda * (1 - pDetIntTx)) / busyBoth; // (18): hidden i overlaps the packet
      const pColHt = pInt * pSimHt + pInt * pSimHt * (1 - pDetIntRx); // (28)

      keepRxb *= 1 - (pRxbCt + pRxbHt); // (14)
      keepCol *= 1 - (pColCt + pColHt); // (26)
      keepRxbHt *= 1 - pRxbHt;
      keepRxbCt *= 1 - pRxbCt;
      keepColHt *= 1 - pColHt;
      keepColCt *= 1 - pColCt;
    }
    const rxbGiven = 1 - keepRxb; // (14)
    const colGiven = 1 - keepCol; // (26)

    const sen = senGiven; // (3)
    const rxb = rxbGiven * (1 - senGiven); // (4)
    const pro = proGiven * (1 - senGiven) * (1 - rxbGiven); // (5)
    const col = colGiven * (1 - senGiven) * (1 - rxbGiven) * (1 - proGiven); // (6)
    out.sen.push(sen);
    out.rxb.push(rxb);
    out.pro.push(pro);
    out.col.push(col);
    out.pdr.push(1 - sen - rxb - pro - col); // (1)
    out.senGiven.push(senGiven);
    out.rxbGiven.push(rxbGiven);
    out.proGiven.push(proGiven);
    out.colGiven.push(colGiven);
    out.rxbHiddenGiven.push(1 - keepRxbHt);
    out.rxbConcurrentGiven.push(1 - keepRxbCt);
    out.colHiddenGiven.push(1 - keepColHt);
    out.colConcurrentGiven.push(1 - keepColCt);
  }
  return out;
}

/** Mean absolute deviation, the paper's (36): mean over the distances of |a - b|. */
export function meanAbsoluteDeviation(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) throw new Error(`MAD needs two series of one length (got ${a.length} and ${b.length})`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s / a.length;
}
