import type { ResolvedNetwork } from './resolved.js';

/** What cavsim needs to know about a V2V channel kind (`network.channel`), asked instead of comparing names. */
export interface ChannelKindTraits {
  /** The builtin engine models it in process; otherwise it runs only in ns-3. */
  builtin: boolean;
  /** A radio: it takes the radio's settings (txPower, propagation, obstacles, antennaHeight, noiseFigure, rate), not delay, dataRate and loss. */
  radio: boolean;
  /** Its model is driven by every car's position and velocity. */
  positions: boolean;
  /** ns-3 has a program for it (lock-step and real-time); otherwise only the builtin engine runs it. */
  ns3: boolean;
}

/**
 * Every channel kind, in the schema's order. A new kind is a row here, its name in the schema's
 * `network.channel` enum and, if it has settings of its own, a member of `ResolvedNetwork`.
 */
export const CHANNEL_KINDS = {
  csma: { builtin: true, radio: false, positions: false, ns3: true },
  latency: { builtin: true, radio: false, positions: false, ns3: true },
  'wifi-80211p': { builtin: true, radio: true, positions: true, ns3: true },
  'lte-v2x': { builtin: true, radio: true, positions: true, ns3: false },
  'nr-v2x': { builtin: true, radio: true, positions: true, ns3: false },
} as const satisfies Record<ResolvedNetwork['channel'], ChannelKindTraits>;

export type ChannelKind = keyof typeof CHANNEL_KINDS;
type KindsWith<T extends keyof ChannelKindTraits> = {
  [K in ChannelKind]: (typeof CHANNEL_KINDS)[K][T] extends true ? K : never;
}[ChannelKind];
export type RadioKind = KindsWith<'radio'>;
type NetworkOf<K extends ChannelKind> = Extract<ResolvedNetwork, { channel: K }>;

export const channelKind = (kind: ChannelKind): ChannelKindTraits => CHANNEL_KINDS[kind];
/** The kinds whose traits pass `test`, in the schema's order. */
export const kindsWhere = (test: (traits: ChannelKindTraits) => boolean): ChannelKind[] =>
  (Object.keys(CHANNEL_KINDS) as ChannelKind[]).filter((kind) => test(CHANNEL_KINDS[kind]));

export const isRadioKind = (kind: ChannelKind): kind is RadioKind => CHANNEL_KINDS[kind].radio;
/** A radio channel: its settings are the radio's. */
export const isRadio = (n: ResolvedNetwork): n is NetworkOf<RadioKind> => isRadioKind(n.channel);
/** 802.11p: the radio ns-3 also runs (its PHY rate and carrier sense are its own). */
export const isWifi = (n: ResolvedNetwork): n is NetworkOf<'wifi-80211p'> => n.channel === 'wifi-80211p';
/** Why a kind without an ns-3 program (`ns3: false`) cannot run where ns-3 must run the channel. */
export const noNs3Program = (kind: ChannelKind) =>
  `network.channel: ${kind} has no ns-3 program: it runs only in the builtin engine of the simulated runtime (cavsim up --runtime sim)`;
/** A channel the builtin engine models. */
export const hasBuiltinModel = (n: ResolvedNetwork): n is NetworkOf<KindsWith<'builtin'>> => CHANNEL_KINDS[n.channel].builtin;
