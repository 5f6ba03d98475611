import { isRadio } from './channel-kinds.js';
import type { ResolvedNetwork } from './resolved.js';
import { formatDataRate } from './units.js';

const ms = (s: number) => `${+(s * 1000).toFixed(3)} ms`;

/** One line naming the channel and its settings, e.g. `csma, delay 10 ms, 100Mbps` or `wifi-80211p, 20 dBm, log-distance, walls block`. */
export function describeNetwork(n: ResolvedNetwork): string {
  if (n.channel === 'lte-v2x') {
    const where = n.obstacles === 'map' ? 'walls block' : 'no obstacles';
    return `lte-v2x, ${n.txPower} dBm, ${n.propagation}, ${n.subchannels} subchannels, MCS ${n.mcs}, RRI ${ms(n.rri)}, ${where}`;
  }
  if (n.channel === 'nr-v2x') {
    const where = n.obstacles === 'map' ? 'walls block' : 'no obstacles';
    const retx = n.retransmissions ? `, ${n.retransmissions} retransmission${n.retransmissions > 1 ? 's' : ''}` : '';
    return `nr-v2x, ${n.txPower} dBm, ${n.propagation}, numerology ${n.numerology}, ${n.subchannelSize}-block subchannels, MCS ${n.mcs}, ${n.scheduling} RRI ${ms(n.rri)}${retx}, ${where}`;
  }
  if (isRadio(n)) {
    const added = [n.delay ? `delay ${ms(n.delay)} added` : '', n.loss ? `loss ${+(n.loss * 100).toFixed(3)}% added` : ''].filter(Boolean);
    const extra = added.length ? `, ${added.join(', ')}` : '';
    return `${n.channel}, ${n.txPower} dBm, ${n.propagation}, ${formatDataRate(n.rate)}, ${n.obstacles === 'map' ? 'walls block' : 'no obstacles'}${extra}`;
  }
  const jitter = n.channel === 'latency' && n.jitter > 0 ? ` + up to ${ms(n.jitter)}` : '';
  const loss = n.loss > 0 ? `, loss ${+(n.loss * 100).toFixed(3)}%` : '';
  return `${n.channel}, delay ${ms(n.delay)}${jitter}, ${formatDataRate(n.dataRate)}${loss}`;
}
