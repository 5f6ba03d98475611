import { hasBuiltinModel } from '../../scenario/channel-kinds.js';
import type { ResolvedNetwork } from '../../scenario/resolved.js';
import type { V2VChannel } from '../frames.js';
import { CsmaBus } from './csma-bus.js';
import { LatencyChannel } from './latency-channel.js';

/** The simulated runtime's builtin model of the scenario's channel kind. */
export function createChannel<T>(network: ResolvedNetwork, seed: number): V2VChannel<T> {
  if (!hasBuiltinModel(network)) throw new Error(`${network.channel} has no builtin model; it runs in ns-3`);
  const { delay, dataRate, loss } = network;
  if (network.channel === 'latency') return new LatencyChannel<T>({ delay, jitter: network.jitter, dataRate, loss, seed });
  return new CsmaBus<T>({ delay, dataRate, loss, seed });
}
