import type { ResolvedNetwork } from './resolved.js';

/** What cavsim needs to know about a V2V channel kind (`network.channel`), asked instead of comparing names. */
export interface ChannelKindTraits {
  /** The builtin engine models it in process; otherwise it runs only in ns-3. */
  builtin: boolean;
  /** A radio: it takes the radio's settings (txPower, propagation, obstacles, antennaHeight, noiseFigure, rate), not delay, dataRate and loss. */
  radio: boolean;
  /** Its model is driven by every car's position and velocity. */
  positions: boolean;
}

/**
 * Every channel kind, in the schema's order. A new kind is a row here, its name in the schema's
 * `network.channel` enum and, if it has settings of its own, a member of `ResolvedNetwork`.
 */
export const CHANNEL_KINDS = {
  csma: { builtin: true, radio: false, positions: false },
  latency: { builtin: true, radio: false, positions: false },
  'wifi-80211p': { builtin: true, radio: true, positions: true },
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
/** A channel the builtin engine models. */
export const hasBuiltinModel = (n: ResolvedNetwork): n is NetworkOf<KindsWith<'builtin'>> => CHANNEL_KINDS[n.channel].builtin;
