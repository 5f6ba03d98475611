import type { LteV2xNetwork, ResolvedNetwork } from './resolved.js';
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

/** The network block of `channel: lte-v2x` with its defaults filled, and what it asks for that the model cannot do. */
export function resolveLteV2x(
  parsed: NetworkParsed,
  extras: { engine?: ResolvedNetwork['engine']; script?: string },
): { network: ResolvedNetwork; problems: ScenarioProblem[] } {
  const problems: ScenarioProblem[] = [];
  if (parsed.engine === 'ns3')
    problems.push({
      path: ['network', 'engine'],
      message: 'lte-v2x has no ns-3 program: it runs only in the builtin engine; set engine: builtin or remove engine',
    });
  if (parsed.script !== undefined)
    problems.push({
      path: ['network', 'script'],
      message: 'lte-v2x runs only in the simulated runtime (an ns-3 channel script is for the emulated runtime); remove script',
    });
  const rri = parsed.rri ?? LTE_V2X_DEFAULTS.rri;
  if (!LTE_V2X_RRIS.some((r) => Math.abs(r - rri) < 1e-9))
    problems.push({
      path: ['network', 'rri'],
      message: `${+(rri * 1000).toFixed(3)}ms is not an LTE-V2X reservation interval; use 20ms, 50ms or 100ms to 1s in steps of 100ms`,
    });
  const network: LteV2xNetwork & { engine?: ResolvedNetwork['engine'] } = {
    channel: 'lte-v2x',
    txPower: parsed.txPower ?? LTE_V2X_DEFAULTS.txPower,
    propagation: parsed.propagation ?? LTE_V2X_DEFAULTS.propagation,
    obstacles: parsed.obstacles ?? LTE_V2X_DEFAULTS.obstacles,
    antennaHeight: parsed.antennaHeight ?? LTE_V2X_DEFAULTS.antennaHeight,
    noiseFigure: parsed.noiseFigure ?? LTE_V2X_DEFAULTS.noiseFigure,
    shadowing: parsed.shadowing ?? LTE_V2X_DEFAULTS.shadowing,
    ...(parsed.noiseFloor !== undefined ? { noiseFloor: parsed.noiseFloor } : {}),
    subchannels: parsed.subchannels ?? LTE_V2X_DEFAULTS.subchannels,
    rri,
    mcs: parsed.mcs ?? LTE_V2X_DEFAULTS.mcs,
    keepProbability: parsed.keepProbability ?? LTE_V2X_DEFAULTS.keepProbability,
    ...(extras.engine !== undefined ? { engine: extras.engine } : {}),
  };
  return { network, problems };
}
