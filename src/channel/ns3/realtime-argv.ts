import { UserInputError } from '../../errors.js';
import { isRadio, isWifi, noNs3Program } from '../../scenario/channel-kinds.js';
import type { ResolvedNetwork } from '../../scenario/resolved.js';
import { formatDataRate, formatDuration } from '../../scenario/units.js';
import { wifiFlags } from './lockstep/lockstep-argv.js';

export interface RealtimeChannelArgs {
  network: ResolvedNetwork;
  /** Host tap devices, one per vehicle in vehicle order. */
  taps: readonly string[];
  /** ns-3's RNG run number: the scenario's seed. */
  run: number;
  /** Seconds to run; the channel runs until stopped when omitted. */
  durationS?: number;
  /** wifi-80211p with `obstacles: map`: the map's walls, as src/channel/ns3/lockstep/obstacle-grid-file.ts writes them. */
  obstacleFile?: string;
  /**
   * Each vehicle's V2V MAC in tap order. wifi-80211p: so its radio acknowledges frames for it from
   * the start. csma, latency (the built-in program only): so it knows where a unicast goes before
   * the receiver has sent anything.
   */
  macs?: readonly string[];
  /** The built-in program only: the file it writes each lost frame to, with the reason. */
  outcomesFile?: string;
}

const time = (seconds: number) => formatDuration(seconds).replace(/^0ms$/, '0s');

/**
 * The real-time channel program's argv (docs/ns3-argv-contract.md), from the scenario's typed
 * settings: ns-3 Time and DataRate strings, the same for the built-in program and a user's own.
 */
export function realtimeChannelArgv(a: RealtimeChannelArgs): string[] {
  const n = a.network;
  if (isRadio(n)) {
    if (!isWifi(n)) throw new UserInputError(noNs3Program(n.channel));
    return [
      `--taps=${a.taps.join(',')}`,
      `--channel=${n.channel}`,
      ...wifiFlags(n, a.obstacleFile),
      ...(a.macs ? [`--macs=${a.macs.join(',')}`] : []),
      `--run=${a.run}`,
      ...(a.durationS ? [`--duration=${a.durationS}`] : []),
      ...(a.outcomesFile ? [`--outcomes=${a.outcomesFile}`] : []),
    ];
  }
  return [
    `--taps=${a.taps.join(',')}`,
    `--channel=${n.channel}`,
    `--delay=${time(n.delay)}`,
    ...(n.channel === 'latency' ? [`--jitter=${time(n.jitter)}`] : []),
    `--dataRate=${formatDataRate(n.dataRate)}`,
    `--loss=${n.loss}`,
    ...(a.macs ? [`--macs=${a.macs.join(',')}`] : []),
    `--run=${a.run}`,
    ...(a.durationS ? [`--duration=${a.durationS}`] : []),
    ...(a.outcomesFile ? [`--outcomes=${a.outcomesFile}`] : []),
  ];
}
