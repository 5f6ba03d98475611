/**
 * Reference points of the Sepulcre et al. 802.11p model (IEEE TVT 2021, see sepulcre-80211p.ts) for the paper's
 * highway configurations, for the builtin engine's validation (issue 48) and to pin sepulcre-80211p.ts.
 *
 * `points`: the authors' own MATLAB code (github.com/msepulcre/IEEE802.11p-model, commit 809a3b6, model80211p.m),
 * run unchanged under GNU Octave 7.3.0 with the signal 1.4.3 and statistics 1.5.3 packages (Debian bookworm),
 * printed with 10 decimals and rounded here to 6. Every configuration: Pt 23 dBm, 190-byte packets, 6 Mb/s,
 * the code's defaults for the rest (SEPULCRE_DEFAULTS). Losses are the paper's (3)-(6): fractions of all packets,
 * pdr + sen + rxb + pro + col = 1.
 *
 * `simulation`: the paper's own simulation results for the same configuration, read from the .fig files in that
 * repository's simulations/ folder (curves "PDR", "SEN sim", "RXB sim", "SNR sim" = PRO, "COL sim"; the CBR as the
 * mean of the simulated CBR histogram). The same distances as `points`. They show how far a packet-level simulator
 * lies from the model: the paper's measure of it is the mean absolute deviation, (36).
 */
import {
  HIGHWAY_60_VEH_KM_10HZ,
  HIGHWAY_120_VEH_KM_10HZ,
  HIGHWAY_120_VEH_KM_25HZ,
  meanAbsoluteDeviation,
  type Sepulcre80211pParams,
} from './sepulcre-80211p.js';

export interface SepulcreReferencePoint {
  distanceM: number;
  pdr: number;
  sen: number;
  rxb: number;
  pro: number;
  col: number;
}

export interface SepulcreReferenceCurve {
  label: string;
  params: Sepulcre80211pParams;
  /** CBR of (35). */
  cbr: number;
  /** 0 to 500 m in 50 m steps. */
  points: SepulcreReferencePoint[];
  /** The paper's simulation at the same distances. */
  simulation: { cbrMean: number; pdr: number[]; sen: number[]; rxb: number[]; pro: number[]; col: number[] };
}

export const SEPULCRE_REFERENCE: SepulcreReferenceCurve[] = [
  {
    label: '60 veh/km, 10 Hz',
    params: HIGHWAY_60_VEH_KM_10HZ,
    cbr: 0.107123,
    points: [
      { distanceM: 0, pdr: 0.987, sen: 0.0, rxb: 0.011986, pro: 0.000988, col: 0.000025 },
      { distanceM: 50, pdr: 0.982426, sen: 0.0, rxb: 0.015524, pro: 0.001022, col: 0.001028 },
      { distanceM: 100, pdr: 0.970054, sen: 0.0, rxb: 0.023535, pro: 0.001858, col: 0.004552 },
      { distanceM: 150, pdr: 0.935855, sen: 0.000081, rxb: 0.033361, pro: 0.003644, col: 0.027059 },
      { distanceM: 200, pdr: 0.859813, sen: 0.017581, rxb: 0.042242, pro: 0.015518, col: 0.064846 },
      { distanceM: 250, pdr: 0.631797, sen: 0.207719, rxb: 0.041216, pro: 0.042406, col: 0.076862 },
      { distanceM: 300, pdr: 0.29802, sen: 0.595372, rxb: 0.024352, pro: 0.03765, col: 0.044605 },
      { distanceM: 350, pdr: 0.089271, sen: 0.871605, rxb: 0.00879, pro: 0.015447, col: 0.014887 },
      { distanceM: 400, pdr: 0.018799, sen: 0.971755, rxb: 0.002178, pro: 0.003883, col: 0.003384 },
      { distanceM: 450, pdr: 0.003089, sen: 0.995191, rxb: 0.000413, pro: 0.000714, col: 0.000593 },
      { distanceM: 500, pdr: 0.000429, sen: 0.999311, rxb: 0.000065, pro: 0.000107, col: 0.000088 },
    ],
    simulation: {
      cbrMean: 0.103,
      pdr: [0.983303, 0.976311, 0.962714, 0.927818, 0.8519, 0.628123, 0.297065, 0.090634, 0.019454, 0.003185, 0.000565],
      sen: [0.000005, 0.0, 0.0, 0.000142, 0.01904, 0.209551, 0.595527, 0.869415, 0.970462, 0.995165, 0.999051],
      rxb: [0.01503, 0.017933, 0.026336, 0.036634, 0.045965, 0.04463, 0.026246, 0.009238, 0.002285, 0.000456, 0.000109],
      pro: [0.000909, 0.000967, 0.001901, 0.003806, 0.015468, 0.041186, 0.03617, 0.015315, 0.003882, 0.000736, 0.000142],
      col: [0.000407, 0.003319, 0.008302, 0.030873, 0.066921, 0.075656, 0.043375, 0.014969, 0.003199, 0.00063, 0.000115],
    },
  },
  {
    label: '120 veh/km, 25 Hz',
    params: HIGHWAY_120_VEH_KM_25HZ,
    cbr: 0.452513,
    points: [
      { distanceM: 0, pdr: 0.925828, sen: 0.0, rxb: 0.0727, pro: 0.000927, col: 0.000544 },
      { distanceM: 50, pdr: 0.898244, sen: 0.0, rxb: 0.09386, pro: 0.000941, col: 0.006956 },
      { distanceM: 100, pdr: 0.836105, sen: 0.0, rxb: 0.136682, pro: 0.001643, col: 0.02557 },
      { distanceM: 150, pdr: 0.685619, sen: 0.000081, rxb: 0.184875, pro: 0.003073, col: 0.126353 },
      { distanceM: 200, pdr: 0.49565, sen: 0.017581, rxb: 0.224498, pro: 0.01251, col: 0.249761 },
      { distanceM: 250, pdr: 0.292628, sen: 0.207719, rxb: 0.211666, pro: 0.032782, col: 0.255206 },
      { distanceM: 300, pdr: 0.119982, sen: 0.595372, rxb: 0.121706, pro: 0.028011, col: 0.134928 },
      { distanceM: 350, pdr: 0.032618, sen: 0.871605, rxb: 0.042676, pro: 0.011071, col: 0.04203 },
      { distanceM: 400, pdr: 0.006328, sen: 0.971755, rxb: 0.010254, pro: 0.00268, col: 0.008982 },
      { distanceM: 450, pdr: 0.000963, sen: 0.995191, rxb: 0.001886, pro: 0.000474, col: 0.001485 },
      { distanceM: 500, pdr: 0.000124, sen: 0.999311, rxb: 0.000288, pro: 0.000069, col: 0.000208 },
    ],
    simulation: {
      cbrMean: 0.4431,
      pdr: [0.919372, 0.885045, 0.811061, 0.661867, 0.480893, 0.281365, 0.114233, 0.030635, 0.005902, 0.000899, 0.000152],
      sen: [0.000001, 0.0, 0.0, 0.00013, 0.019783, 0.211202, 0.594712, 0.869203, 0.970971, 0.994773, 0.998956],
      rxb: [0.074634, 0.089926, 0.128662, 0.173705, 0.214485, 0.205554, 0.119619, 0.043039, 0.010413, 0.001982, 0.000364],
      pro: [0.000941, 0.000945, 0.001668, 0.003222, 0.012839, 0.03201, 0.027189, 0.010902, 0.002669, 0.000464, 0.000083],
      col: [0.002797, 0.022617, 0.056535, 0.157183, 0.268091, 0.264979, 0.140909, 0.044941, 0.009782, 0.001732, 0.0003],
    },
  },
  {
    label: '120 veh/km, 10 Hz',
    params: HIGHWAY_120_VEH_KM_10HZ,
    cbr: 0.20363,
    points: [
      { distanceM: 0, pdr: 0.973649, sen: 0.0, rxb: 0.025218, pro: 0.000975, col: 0.000158 },
      { distanceM: 50, pdr: 0.964052, sen: 0.0, rxb: 0.032734, pro: 0.001004, col: 0.00221 },
      { distanceM: 100, pdr: 0.939686, sen: 0.0, rxb: 0.049091, pro: 0.00181, col: 0.009413 },
      { distanceM: 150, pdr: 0.874037, sen: 0.000081, rxb: 0.068731, pro: 0.00351, col: 0.053641 },
      { distanceM: 200, pdr: 0.758865, sen: 0.017581, rxb: 0.086241, pro: 0.014792, col: 0.122521 },
      { distanceM: 250, pdr: 0.528449, sen: 0.207719, rxb: 0.083745, pro: 0.040005, col: 0.140083 },
      { distanceM: 300, pdr: 0.240472, sen: 0.595372, rxb: 0.049453, pro: 0.035164, col: 0.079538 },
      { distanceM: 350, pdr: 0.070239, sen: 0.871605, rxb: 0.017766, pro: 0.014288, col: 0.026102 },
      { distanceM: 400, pdr: 0.014484, sen: 0.971755, rxb: 0.004365, pro: 0.003558, col: 0.005839 },
      { distanceM: 450, pdr: 0.002334, sen: 0.995191, rxb: 0.000819, pro: 0.000648, col: 0.001008 },
      { distanceM: 500, pdr: 0.000318, sen: 0.999311, rxb: 0.000127, pro: 0.000096, col: 0.000147 },
    ],
    simulation: {
      cbrMean: 0.2004,
      pdr: [0.97189, 0.962745, 0.93701, 0.875936, 0.766935, 0.537084, 0.247144, 0.073673, 0.015461, 0.002593, 0.000418],
      sen: [0.000002, 0.0, 0.0, 0.00012, 0.019873, 0.211358, 0.594864, 0.86906, 0.970789, 0.994697, 0.999035],
      rxb: [0.02585, 0.031846, 0.046259, 0.063318, 0.079683, 0.078452, 0.046257, 0.017027, 0.004156, 0.000824, 0.000184],
      pro: [0.000989, 0.001025, 0.001823, 0.003598, 0.015164, 0.039157, 0.034277, 0.014207, 0.003593, 0.000682, 0.000112],
      col: [0.000447, 0.00411, 0.014596, 0.056149, 0.117659, 0.132615, 0.076331, 0.025547, 0.005954, 0.001054, 0.000199],
    },
  },
];

/** The acceptance bound of issue 48: an engine's PDR curve may deviate from the model's by this much on average. */
export const PDR_MAD_BOUND = 0.05;

/**
 * Mean absolute deviation, (36), of a measured PDR curve from a reference curve's points. `pdrAt` gives the measured
 * PDR at a distance [m] (e.g. received / sent in a bin around it).
 */
export function pdrDeviation(curve: SepulcreReferenceCurve, pdrAt: (distanceM: number) => number): number {
  return meanAbsoluteDeviation(
    curve.points.map((p) => pdrAt(p.distanceM)),
    curve.points.map((p) => p.pdr),
  );
}
