import type { ChannelFrame } from '../../frames.js';
import type { ReachedCars } from './reached-cars.js';
import type { AnnouncedResources } from './sensing.js';
import type { CopyResource } from './sps-reservation.js';

/** dBm to mW and back; exp and log rather than `10 **`, which costs several times more per receiver. */
export const mw = (dbm: number) => Math.exp(dbm * (Math.LN10 / 10));
export const dbOf = (mwValue: number) => (10 / Math.LN10) * Math.log(mwValue);

export interface Packet<P> {
  frame: ChannelFrame<P>;
  sentAt: number;
  bytes: number;
}

/** A blind retransmission waiting for its slot: the same packets on its own resource. */
export interface Copy<P> {
  car: number;
  first: number;
  length: number;
  packets: Transmission<P>['packets'];
  announce: AnnouncedResources | undefined;
  final: boolean;
}

/** One car's transport block in one slot, and what each car it reached got of it. */
export interface Transmission<P> {
  car: number;
  /** The packet's last copy: its failures are reported; earlier copies report only what they deliver. */
  final: boolean;
  announce: AnnouncedResources | undefined;
  /** Each packet and its addressees still owed an outcome (undefined: every car but the sender; each gets one outcome). */
  packets: { packet: Packet<P>; open: Uint8Array | undefined }[];
  first: number;
  length: number;
  /** The message's noise over its data blocks [mW], and how much more SINR its MCS needs than the reference [dB]. */
  noiseMw: number;
  shiftDb: number;
  rsrpOffsetDb: number;
  reached: ReachedCars;
}

export type Event<P> = { kind: 'arrive'; car: number; packet: Packet<P> } | { kind: 'subframe'; subframe: number };

/** The resources an SCI sent on a packet's resource `k` (0: the first) announces besides its own (TS 38.212 SCI format 1-A). */
export function announced(subframe: number, first: number, copies: CopyResource[], k: number): AnnouncedResources | undefined {
  if (!copies.length) return undefined;
  const all = [{ offset: 0, first }, ...copies].filter((_, i) => i !== k);
  return { slots: all.map((c) => subframe + c.offset), firsts: all.map((c) => c.first) };
}
