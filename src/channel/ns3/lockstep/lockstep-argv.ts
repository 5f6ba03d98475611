import { UserInputError } from '../../../errors.js';
import { isRadio, isWifi, noNs3Program } from '../../../scenario/channel-kinds.js';
import { WIFI_DEFAULTS } from '../../../scenario/resolve-network.js';
import type { ResolvedNetwork, WifiNetwork } from '../../../scenario/resolved.js';
import { CHANNEL_BUSY_WINDOW_S } from '../../frames.js';

/** ns-3's name of an 802.11p OFDM rate on a 10 MHz channel, e.g. 6e6 -> OfdmRate6MbpsBW10MHz. */
export const wifiModeName = (rate: number) => `OfdmRate${String(rate / 1e6).replace('.', '_')}MbpsBW10MHz`;

export interface LockstepArgs {
  network: ResolvedNetwork;
  nodes: number;
  /** ns-3's run number: one per scenario seed, so repeats differ and a seed repeats itself. */
  run: number;
  /** Occupancy grid file for `obstacles: map`. */
  obstacleFile?: string;
}

/** A key with a value other than its default (a scenario resolved before the key existed has none). */
const set = (value: number | undefined, byDefault: number) => value !== undefined && value !== byDefault;

/**
 * The radio's flags, the same for the lock-step and the real-time program. Shadowing, noise floor and
 * carrier-sense threshold go only when they are not the program's defaults, so a scenario that does not
 * set them runs with the argv it ran with before they existed.
 */
export function wifiFlags(n: WifiNetwork, obstacleFile: string | undefined): string[] {
  return [
    `--txPower=${n.txPower}`,
    `--propagation=${n.propagation}`,
    `--antennaHeight=${n.antennaHeight}`,
    `--noiseFigure=${n.noiseFigure}`,
    `--rate=${wifiModeName(n.rate)}`,
    ...(obstacleFile ? [`--obstacles=${obstacleFile}`] : []),
    ...(set(n.shadowing, WIFI_DEFAULTS.shadowing) ? [`--shadowing=${n.shadowing}`] : []),
    ...(n.noiseFloor !== undefined ? [`--noiseFloor=${n.noiseFloor}`] : []),
    ...(n.csThreshold !== undefined ? [`--csThreshold=${n.csThreshold}`] : []),
  ];
}

const CBR_WINDOW_FLAG = '--cbrWindow=';

/** The channel busy window the lock-step program was asked to report [ns], undefined when it reports none. */
export function channelBusyWindowNs(argv: readonly string[]): number | undefined {
  const flag = argv.find((a) => a.startsWith(CBR_WINDOW_FLAG));
  return flag ? Number(flag.slice(CBR_WINDOW_FLAG.length)) : undefined;
}

/** The lock-step program's argv (ns3-scripts/lockstep-channel.cc): SI values as plain numbers, times in ns. */
export function lockstepArgv(a: LockstepArgs): string[] {
  const n = a.network;
  const common = [`--channel=${n.channel}`, `--nodes=${a.nodes}`, '--seed=1', `--run=${a.run}`];
  const ns = (s: number) => Math.round(s * 1e9);
  if (isRadio(n)) {
    if (!isWifi(n)) throw new UserInputError(noNs3Program(n.channel));
    return [...common, ...wifiFlags(n, a.obstacleFile), `${CBR_WINDOW_FLAG}${ns(CHANNEL_BUSY_WINDOW_S)}`];
  }
  return [
    ...common,
    `--delay=${ns(n.delay)}`,
    `--dataRate=${n.dataRate}`,
    `--loss=${n.loss}`,
    ...(n.channel === 'latency' ? [`--jitter=${ns(n.jitter)}`] : []),
  ];
}
