import type { LteV2xNetwork, NrV2xNetwork, WifiNetwork } from '../../../scenario/resolved.js';
import { NrResourcePool } from './nr-resource-pool.js';
import { ResourcePool } from './resource-pool.js';
import { SidelinkChannel, type SidelinkOptions } from './sidelink-channel.js';

/** LinkBudget reads only the propagation keys, which every radio shares; the 802.11p-only ones are placeholders it never reads. */
function propagationOf(n: LteV2xNetwork | NrV2xNetwork): WifiNetwork {
  const { txPower, propagation, obstacles, antennaHeight, noiseFigure, shadowing } = n;
  return { channel: 'wifi-80211p', txPower, propagation, obstacles, antennaHeight, noiseFigure, shadowing, rate: 6e6 };
}

/** LTE-V2X Mode 4 (3GPP Rel-14): 1 ms subframes of 10 MHz, sensing-based SPS, no retransmissions. */
export class LteV2xChannel<P> extends SidelinkChannel<P> {
  constructor(opts: SidelinkOptions & { network: LteV2xNetwork }) {
    const { network } = opts;
    super(opts, {
      channel: 'lte-v2x',
      grid: new ResourcePool(network.subchannels, network.mcs),
      rri: network.rri,
      keepProbability: network.keepProbability,
      scheduling: 'sps',
      retransmissions: 0,
      sensingWindow: 1,
      rankByRssi: true,
      propagation: propagationOf(network),
      ...(network.noiseFloor !== undefined ? { noiseFloor: network.noiseFloor } : {}),
    });
  }
}

/** NR-V2X Mode 2 (3GPP Rel-16): slots by numerology on 20 MHz, SPS or dynamic scheduling, blind retransmissions. */
export class NrV2xChannel<P> extends SidelinkChannel<P> {
  constructor(opts: SidelinkOptions & { network: NrV2xNetwork }) {
    const { network } = opts;
    super(opts, {
      channel: 'nr-v2x',
      grid: new NrResourcePool(network.numerology, network.subchannelSize, network.mcs),
      rri: network.rri,
      keepProbability: network.keepProbability,
      scheduling: network.scheduling,
      retransmissions: network.retransmissions,
      sensingWindow: 1.1,
      rankByRssi: false,
      propagation: propagationOf(network),
      ...(network.noiseFloor !== undefined ? { noiseFloor: network.noiseFloor } : {}),
    });
  }
}
