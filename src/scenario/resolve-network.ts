import { channelKind, isRadioKind, kindsWhere } from './channel-kinds.js';
import { resolveLteV2x, resolveNrV2x } from './resolve-sidelink.js';
import type { ResolvedNetwork } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';
import { type ScenarioParsed, WIFI_80211P_RATES } from './schema.js';

type NetworkParsed = ScenarioParsed['network'];
type NetworkField = keyof NetworkParsed;

export const WIRED_DEFAULTS = { delay: 0.01, dataRate: 100e6, loss: 0 };
export const WIFI_DEFAULTS = {
  txPower: 20,
  propagation: 'log-distance',
  obstacles: 'map',
  antennaHeight: 1.5,
  noiseFigure: 7,
  rate: 6e6,
  shadowing: 0,
} as const;

const WIRED_FIELDS: NetworkField[] = ['delay', 'dataRate', 'loss'];
/** The keys every radio takes, then each radio's own. */
const RADIO_FIELDS: NetworkField[] = ['txPower', 'propagation', 'obstacles', 'antennaHeight', 'noiseFigure', 'shadowing', 'noiseFloor'];
const WIFI_ONLY_FIELDS: NetworkField[] = ['rate', 'csThreshold'];
/** The keys both sidelinks take, then each one's own. */
const SIDELINK_FIELDS: NetworkField[] = ['rri', 'mcs', 'keepProbability'];
const LTE_V2X_ONLY_FIELDS: NetworkField[] = ['subchannels'];
const NR_V2X_ONLY_FIELDS: NetworkField[] = ['numerology', 'subchannelSize', 'scheduling', 'retransmissions'];

/**
 * The network block with its defaults filled, and what it asks for that does not fit together:
 * a field of another channel kind, a rate the radio does not have, or the builtin engine for wifi.
 */
export function resolveNetwork(
  parsed: NetworkParsed,
  script: string | undefined,
): { network: ResolvedNetwork; problems: ScenarioProblem[] } {
  const problems: ScenarioProblem[] = [];
  const { channel, engine } = parsed;
  const misplaced = (fields: NetworkField[], belongsTo: string) => {
    for (const field of fields) {
      if (parsed[field] !== undefined)
        problems.push({ path: ['network', field], message: `${field} applies only to ${belongsTo}; remove it or change network.channel` });
    }
  };
  const noSidelink = () => {
    misplaced(SIDELINK_FIELDS, 'channel: lte-v2x or nr-v2x');
    misplaced(LTE_V2X_ONLY_FIELDS, 'channel: lte-v2x');
    misplaced(NR_V2X_ONLY_FIELDS, 'channel: nr-v2x');
  };
  const extras = { ...(engine !== undefined ? { engine } : {}), ...(script !== undefined ? { script } : {}) };

  const onlyInNs3 = () => {
    if (engine === 'builtin' && !channelKind(channel).builtin)
      problems.push({
        path: ['network', 'engine'],
        message: `${channel} runs only in ns-3 (engine: ns3); the builtin engine models ${kindsWhere((k) => k.builtin).join(' and ')}`,
      });
  };

  if (channel === 'lte-v2x' || channel === 'nr-v2x') {
    misplaced([...WIRED_FIELDS, 'jitter'], `channel: ${kindsWhere((k) => !k.radio).join(' or ')}`);
    misplaced(WIFI_ONLY_FIELDS, 'channel: wifi-80211p');
    if (channel === 'lte-v2x') misplaced(NR_V2X_ONLY_FIELDS, 'channel: nr-v2x');
    else if (parsed.subchannels !== undefined)
      problems.push({
        path: ['network', 'subchannels'],
        message:
          'subchannels applies only to channel: lte-v2x; nr-v2x splits its channel by subchannelSize (resource blocks): use subchannelSize',
      });
    const sidelink = channel === 'lte-v2x' ? resolveLteV2x(parsed, extras) : resolveNrV2x(parsed, extras);
    return { network: sidelink.network, problems: [...problems, ...sidelink.problems] };
  }
  if (isRadioKind(channel)) {
    misplaced(['dataRate', 'jitter'], `channel: ${kindsWhere((k) => !k.radio).join(' or ')}`);
    problems.push(...addedDelayLossProblems(parsed));
    noSidelink();
    onlyInNs3();
    const rate = parsed.rate ?? WIFI_DEFAULTS.rate;
    if (!WIFI_80211P_RATES.includes(rate)) {
      problems.push({
        path: ['network', 'rate'],
        message: `${rate / 1e6}Mbps is not an 802.11p rate on 10 MHz; use one of ${WIFI_80211P_RATES.map((r) => `${r / 1e6}Mbps`).join(', ')}`,
      });
    }
    const network: ResolvedNetwork = {
      channel,
      txPower: parsed.txPower ?? WIFI_DEFAULTS.txPower,
      propagation: parsed.propagation ?? WIFI_DEFAULTS.propagation,
      obstacles: parsed.obstacles ?? WIFI_DEFAULTS.obstacles,
      antennaHeight: parsed.antennaHeight ?? WIFI_DEFAULTS.antennaHeight,
      noiseFigure: parsed.noiseFigure ?? WIFI_DEFAULTS.noiseFigure,
      rate,
      shadowing: parsed.shadowing ?? WIFI_DEFAULTS.shadowing,
      ...(parsed.noiseFloor !== undefined ? { noiseFloor: parsed.noiseFloor } : {}),
      ...(parsed.csThreshold !== undefined ? { csThreshold: parsed.csThreshold } : {}),
      ...(parsed.delay !== undefined ? { delay: parsed.delay } : {}),
      ...(parsed.loss !== undefined ? { loss: parsed.loss } : {}),
      ...extras,
    };
    return { network, problems };
  }

  misplaced(RADIO_FIELDS, `channel: ${kindsWhere((k) => k.radio).join(' or ')}`);
  misplaced(WIFI_ONLY_FIELDS, 'channel: wifi-80211p');
  noSidelink();
  onlyInNs3();
  if (channel === 'csma' && parsed.jitter !== undefined) {
    problems.push({
      path: ['network', 'jitter'],
      message: 'jitter applies only to channel: latency (the csma channel has a fixed delay); remove it or set channel: latency',
    });
  }
  const wired = {
    delay: parsed.delay ?? WIRED_DEFAULTS.delay,
    dataRate: parsed.dataRate ?? WIRED_DEFAULTS.dataRate,
    loss: parsed.loss ?? WIRED_DEFAULTS.loss,
  };
  const network: ResolvedNetwork =
    channel === 'latency' ? { channel, ...wired, jitter: parsed.jitter ?? 0, ...extras } : { channel, ...wired, ...extras };
  return { network, problems };
}

/**
 * wifi-80211p's `delay` and `loss` are added on top of the radio by the builtin engine; the ns-3
 * lock-step and real-time programs do not add them, so naming ns-3 with them is refused.
 */
function addedDelayLossProblems(parsed: NetworkParsed): ScenarioProblem[] {
  const given = (['delay', 'loss'] as const).filter((f) => parsed[f] !== undefined && parsed[f] !== 0);
  if (parsed.engine !== 'ns3' || !given.length) return [];
  return given.map((field) => ({
    path: ['network', field],
    message: `${field} on wifi-80211p is added on top of the radio by the builtin engine only; set network.engine: builtin, or remove ${field} to run ns-3`,
  }));
}

/** wifi-80211p with an added delay or loss: only the builtin engine adds them (the simulated runtime picks it). */
export const addsDelayOrLoss = (n: ResolvedNetwork): boolean => n.channel === 'wifi-80211p' && ((n.delay ?? 0) > 0 || (n.loss ?? 0) > 0);
