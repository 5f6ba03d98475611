import { isRadio } from '../../../scenario/channel-kinds.js';
import type { ResolvedNetwork, WifiNetwork } from '../../../scenario/resolved.js';

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

/** The radio's flags, the same for the lock-step and the real-time program. */
export function wifiFlags(n: WifiNetwork, obstacleFile: string | undefined): string[] {
  return [
    `--txPower=${n.txPower}`,
    `--propagation=${n.propagation}`,
    `--antennaHeight=${n.antennaHeight}`,
    `--noiseFigure=${n.noiseFigure}`,
    `--rate=${wifiModeName(n.rate)}`,
    ...(obstacleFile ? [`--obstacles=${obstacleFile}`] : []),
  ];
}

/** The lock-step program's argv (ns3-scripts/lockstep-channel.cc): SI values as plain numbers, times in ns. */
export function lockstepArgv(a: LockstepArgs): string[] {
  const n = a.network;
  const common = [`--channel=${n.channel}`, `--nodes=${a.nodes}`, '--seed=1', `--run=${a.run}`];
  if (isRadio(n)) return [...common, ...wifiFlags(n, a.obstacleFile)];
  const ns = (s: number) => Math.round(s * 1e9);
  return [
    ...common,
    `--delay=${ns(n.delay)}`,
    `--dataRate=${n.dataRate}`,
    `--loss=${n.loss}`,
    ...(n.channel === 'latency' ? [`--jitter=${ns(n.jitter)}`] : []),
  ];
}
