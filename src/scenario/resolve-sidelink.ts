import { radioKeys } from './radio-keys.js';
import type { LteV2xNetwork, NrV2xNetwork, ResolvedNetwork } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';
import type { ScenarioParsed } from './schema.js';

type NetworkParsed = ScenarioParsed['network'];

/**
 * lte-v2x's defaults: the highway configuration of Gonzalez-Martin et al. (IEEE TVT 2019), which
 * docs/sidelink.md validates against: 20 dBm, WINNER+ B1 with 3 dB shadowing, -95 dBm of noise in
 * 10 MHz (9 dB noise figure), 4 subchannels, 100 ms reservations, 190 bytes at QPSK r = 0.7 (MCS 9).
 */
export const LTE_V2X_DEFAULTS = {
  txPower: 20,
  propagation: 'winner-b1',
  obstacles: 'map',
  antennaHeight: 1.5,
  noiseFigure: 9,
  shadowing: 3,
  subchannels: 4,
  rri: 0.1,
  mcs: 9,
  keepProbability: 0,
} as const;

/** The reservation intervals TS 36.331 SL-CommTxPoolSensingConfig allows (restrictResourceReservationPeriod) [s]. */
export const LTE_V2X_RRIS = [0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** A sidelink runs only in the builtin engine of the simulated runtime. */
function builtinOnly(parsed: NetworkParsed, channel: 'lte-v2x' | 'nr-v2x'): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  if (parsed.engine === 'ns3')
    problems.push({
      path: ['network', 'engine'],
      message: `${channel} has no ns-3 program: it runs only in the builtin engine; set engine: builtin or remove engine`,
    });
  if (parsed.script !== undefined)
    problems.push({
      path: ['network', 'script'],
      message: `${channel} runs only in the simulated runtime (an ns-3 channel script is for the emulated runtime); remove script`,
    });
  return problems;
}

/** The network block of `channel: lte-v2x` with its defaults filled, and what it asks for that the model cannot do. */
export function resolveLteV2x(
  parsed: NetworkParsed,
  extras: { engine?: ResolvedNetwork['engine']; script?: string },
): { network: ResolvedNetwork; problems: ScenarioProblem[] } {
  const problems = builtinOnly(parsed, 'lte-v2x');
  if (parsed.mcs !== undefined && parsed.mcs > 20)
    problems.push({
      path: ['network', 'mcs'],
      message: `lte-v2x's PSSCH MCS is 0-20 (TS 36.213 Table 8.6.1-1); ${parsed.mcs} is nr-v2x's table: use 0-20`,
    });
  const rri = parsed.rri ?? LTE_V2X_DEFAULTS.rri;
  if (!LTE_V2X_RRIS.some((r) => Math.abs(r - rri) < 1e-9))
    problems.push({
      path: ['network', 'rri'],
      message: `${+(rri * 1000).toFixed(3)}ms is not an LTE-V2X reservation interval; use 20ms, 50ms or 100ms to 1s in steps of 100ms`,
    });
  const network: LteV2xNetwork & { engine?: ResolvedNetwork['engine'] } = {
    channel: 'lte-v2x',
    ...radioKeys(parsed, LTE_V2X_DEFAULTS),
    subchannels: parsed.subchannels ?? LTE_V2X_DEFAULTS.subchannels,
    rri,
    mcs: parsed.mcs ?? LTE_V2X_DEFAULTS.mcs,
    keepProbability: parsed.keepProbability ?? LTE_V2X_DEFAULTS.keepProbability,
    ...(extras.engine !== undefined ? { engine: extras.engine } : {}),
  };
  return { network, problems };
}

/**
 * nr-v2x's defaults: 23 dBm, 10-block subchannels, MCS 14 (16QAM) and probResourceKeep 0 of 5G-LENA's
 * NR V2X examples, on a 20 MHz channel at 30 kHz (51 blocks: 5 subchannels); lte-v2x's highway
 * propagation (WINNER+ B1, 3 dB shadowing, 9 dB noise figure) and 100 ms reservations; SPS without
 * retransmissions, as Mode 4. docs/sidelink.md says where each comes from.
 */
export const NR_V2X_DEFAULTS = {
  txPower: 23,
  propagation: 'winner-b1',
  obstacles: 'map',
  antennaHeight: 1.5,
  noiseFigure: 9,
  shadowing: 3,
  numerology: 1,
  subchannelSize: 10,
  rri: 0.1,
  mcs: 14,
  keepProbability: 0,
  scheduling: 'sps',
  retransmissions: 0,
} as const;

/** Resource blocks of a 20 MHz channel at each numerology (TS 38.101-1 Table 5.3.2-1: 15, 30, 60 kHz). */
export const NR_CHANNEL_BLOCKS: Readonly<Record<number, number>> = { 0: 106, 1: 51, 2: 24 };
/** sl-SubchannelSize-r16 (TS 38.331): the subchannel sizes a pool may have [resource blocks]. */
export const NR_SUBCHANNEL_SIZES: readonly number[] = [10, 12, 15, 20, 25, 50, 75, 100];

/** The reservation intervals of TS 38.331 sl-ResourceReservePeriod-r16: 1-99 ms, and 100 ms to 1 s in steps of 100 ms [s]. */
export const isNrV2xRri = (rri: number) => {
  const ms = rri * 1000;
  return Math.abs(ms - Math.round(ms)) < 1e-6 && ms >= 1 && (ms < 100 || (ms <= 1000 && Math.round(ms) % 100 === 0));
};

/** The network block of `channel: nr-v2x` with its defaults filled, and what it asks for that the model cannot do. */
export function resolveNrV2x(
  parsed: NetworkParsed,
  extras: { engine?: ResolvedNetwork['engine']; script?: string },
): { network: ResolvedNetwork; problems: ScenarioProblem[] } {
  const problems = builtinOnly(parsed, 'nr-v2x');
  const rri = parsed.rri ?? NR_V2X_DEFAULTS.rri;
  if (!isNrV2xRri(rri))
    problems.push({
      path: ['network', 'rri'],
      message: `${+(rri * 1000).toFixed(3)}ms is not an NR-V2X reservation interval; use a whole number of ms from 1ms to 99ms, or 100ms to 1s in steps of 100ms`,
    });
  const numerology = parsed.numerology ?? NR_V2X_DEFAULTS.numerology;
  const subchannelSize = parsed.subchannelSize ?? NR_V2X_DEFAULTS.subchannelSize;
  const blocks = NR_CHANNEL_BLOCKS[numerology];
  if (!NR_SUBCHANNEL_SIZES.includes(subchannelSize) || subchannelSize > blocks) {
    const fits = NR_SUBCHANNEL_SIZES.filter((size) => size <= blocks);
    problems.push({
      path: ['network', 'subchannelSize'],
      message: `${subchannelSize} resource blocks is not a subchannel size of the ${blocks}-block channel at numerology ${numerology}; use one of ${fits.join(', ')}`,
    });
  }
  const network: NrV2xNetwork & { engine?: ResolvedNetwork['engine'] } = {
    channel: 'nr-v2x',
    ...radioKeys(parsed, NR_V2X_DEFAULTS),
    numerology,
    subchannelSize,
    rri,
    mcs: parsed.mcs ?? NR_V2X_DEFAULTS.mcs,
    keepProbability: parsed.keepProbability ?? NR_V2X_DEFAULTS.keepProbability,
    scheduling: parsed.scheduling ?? NR_V2X_DEFAULTS.scheduling,
    retransmissions: parsed.retransmissions ?? NR_V2X_DEFAULTS.retransmissions,
    ...(extras.engine !== undefined ? { engine: extras.engine } : {}),
  };
  return { network, problems };
}
