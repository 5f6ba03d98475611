import { formatDataRate, formatDuration } from '../scenario/units.js';
import type { WiredNetwork } from '../scenario/resolved.js';

export interface RealtimeChannelArgs {
  network: WiredNetwork;
  /** Host tap devices, one per vehicle in vehicle order. */
  taps: readonly string[];
  /** ns-3's RNG run number: the scenario's seed. */
  run: number;
  /** Seconds to run; the channel runs until stopped when omitted. */
  durationS?: number;
}

const time = (seconds: number) => formatDuration(seconds).replace(/^0ms$/, '0s');

/**
 * The real-time channel program's argv (docs/ns3-argv-contract.md), from the scenario's typed
 * settings: ns-3 Time and DataRate strings, the same for the built-in program and a user's own.
 */
export function realtimeChannelArgv(a: RealtimeChannelArgs): string[] {
  const n = a.network;
  return [
    `--taps=${a.taps.join(',')}`,
    `--channel=${n.channel}`,
    `--delay=${time(n.delay)}`,
    ...(n.channel === 'latency' ? [`--jitter=${time(n.jitter)}`] : []),
    `--dataRate=${formatDataRate(n.dataRate)}`,
    `--loss=${n.loss}`,
    `--run=${a.run}`,
    ...(a.durationS ? [`--duration=${a.durationS}`] : []),
  ];
}
