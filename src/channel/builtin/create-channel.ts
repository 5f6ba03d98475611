import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import { channelKind } from '../../scenario/channel-kinds.js';
import type { ResolvedNetwork } from '../../scenario/resolved.js';
import type { V2VChannel } from '../frames.js';
import { LteV2xChannel, NrV2xChannel } from '../radio/sidelink/lte-v2x-channel.js';
import { type CarPosition, Wifi80211pChannel, type Wifi80211pOptions } from '../radio/wifi-80211p/wifi-80211p-channel.js';
import { CsmaBus } from './csma-bus.js';
import { LatencyChannel } from './latency-channel.js';

/** What a radio model needs of the run beyond its settings: the cars, where they are, the map's walls. */
export interface RadioContext {
  names: readonly string[];
  positions: () => readonly CarPosition[];
  grid?: OccupancyGrid;
  stackDelay?: () => number;
  /** Fleets: outcomes counted instead of listed (Wifi80211pOptions.tally). */
  tally?: Wifi80211pOptions['tally'];
}

/** The simulated runtime's builtin model of the scenario's channel kind. */
export function createChannel<T>(network: ResolvedNetwork, seed: number, radio?: RadioContext): V2VChannel<T> {
  if (!channelKind(network.channel).builtin) throw new Error(`${network.channel} has no builtin model; it runs in ns-3`);
  if (network.channel === 'wifi-80211p') {
    if (!radio) throw new Error('wifi-80211p needs the cars and their positions');
    return new Wifi80211pChannel<T>({ network, seed, ...radio });
  }
  if (network.channel === 'lte-v2x') {
    if (!radio) throw new Error('lte-v2x needs the cars and their positions');
    return new LteV2xChannel<T>({ network, seed, ...radio });
  }
  if (network.channel === 'nr-v2x') {
    if (!radio) throw new Error('nr-v2x needs the cars and their positions');
    return new NrV2xChannel<T>({ network, seed, ...radio });
  }
  const { delay, dataRate, loss } = network;
  if (network.channel === 'latency') return new LatencyChannel<T>({ delay, jitter: network.jitter, dataRate, loss, seed });
  return new CsmaBus<T>({ delay, dataRate, loss, seed });
}
