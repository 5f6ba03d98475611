/** Bytes a datagram adds on the wire: UDP 8 + IPv4 20 + Ethernet header and trailer 18. */
export const FRAME_OVERHEAD_BYTES = 46;

export interface ChannelFrame<T> {
  payload: T;
  from: string;
  /** Receivers this frame is addressed to (all others for a broadcast). */
  to: readonly string[];
  /** Sent to the broadcast address (a radio MAC neither acknowledges nor retries it); else to `to[0]`. */
  broadcast: boolean;
  /** UDP payload bytes; the wire adds FRAME_OVERHEAD_BYTES. */
  sizeBytes: number;
}

/**
 * Why a frame did not reach one of its receivers:
 * - `channel-loss`: the channel's loss probability (csma, latency);
 * - `below-sensitivity`: received power under the radio's sensitivity (wifi, lte-v2x);
 * - `propagation`: sensed, but its SINR would fail even with no other frame on the air (wifi, lte-v2x);
 * - `collision`: it would have been decoded without the frames that overlapped it (wifi, lte-v2x);
 * - `rx-error`: received but not decodable, cause not told apart (wifi, run folders from before the split);
 * - `receiver-busy`: the receiver was transmitting or locked on another frame (wifi);
 * - `half-duplex`: the receiver transmitted in the same subframe, so heard nothing in it (lte-v2x);
 * - `queue-drop`: the sender's transmit queue was full;
 * - `run-ended`: still in flight when the run ended.
 */
/** Every loss reason, in this order wherever they are listed (tables, CSV columns, parsers). */
export const LOSS_REASONS = [
  'channel-loss',
  'below-sensitivity',
  'propagation',
  'collision',
  'rx-error',
  'receiver-busy',
  'half-duplex',
  'queue-drop',
  'run-ended',
] as const;
export type LossReason = (typeof LOSS_REASONS)[number];
/** The reasons a channel reports for a frame it handled (`run-ended` is the runtime's, for frames still in flight). */
export const CHANNEL_LOSS_REASONS: readonly LossReason[] = LOSS_REASONS.filter((r) => r !== 'run-ended');

/** What became of one frame at one receiver: delivered at `at`, or lost at `at` for `lost`. */
export interface Delivery<T> {
  payload: T;
  to: string;
  /** Virtual time the frame reached (or was lost at) the receiver [s]. */
  at: number;
  lost?: LossReason;
  /** Received signal power, for radio channels [dBm]. */
  rxPowerDbm?: number;
  /** Whether the map's walls left the line of sight clear, for radio channels with obstacles. */
  lineOfSight?: boolean;
}

/** What the simulated runtime needs from a channel model: frames in, outcomes out, in virtual time. */
export interface V2VChannel<T> {
  /** Queues a frame handed to the channel at time `now`. */
  send(frame: ChannelFrame<T>, now: number): void;
  /**
   * For a channel run by another process (ns-3 in lock-step): brings it to `now`, with every frame
   * sent so far, before `deliverDue(now)`. In-process models have none.
   */
  advanceTo?(now: number): Promise<void>;
  /**
   * For such a channel: the next `advanceTo` will be to `next`; it may start advancing now, while
   * the caller steps the physics, with the frames sent so far.
   */
  prefetch?(next: number): void;
  /**
   * For such a channel, at the end of a run: brings it to `now` and waits for every outcome up to
   * it, including those `advanceTo` did not wait for. Without it, `advanceTo(now)` does that.
   */
  settle?(now: number): Promise<void>;
  /**
   * For a radio: removes and returns each car's channel busy ratio for every 100 ms window that
   * ended at or before `now`, in window order. Channels without a medium state have none.
   */
  takeChannelBusy?(now: number): ChannelBusySample[];
  /** Removes and returns, in time order, every outcome (delivery or loss) due at or before `now`. */
  deliverDue(now: number): Delivery<T>[];
  /** Ends the channel (a process is stopped); harmless to call twice. */
  close?(): Promise<void>;
}

/** Seconds a frame takes to serialise onto a link of `dataRate` bit/s. */
export const serialisationTime = (sizeBytes: number, dataRate: number) => ((sizeBytes + FRAME_OVERHEAD_BYTES) * 8) / dataRate;

/** The share of one window a car's radio sensed the medium busy (receiving, sensing energy, or transmitting). */
export interface ChannelBusySample {
  car: string;
  /** Window start and end, virtual time [s]. */
  start: number;
  end: number;
  /** Busy time over window length, 0..1. */
  busyRatio: number;
}

/** Channel busy ratio windows, as ETSI TS 102 687 measures CBR: 100 ms. */
export const CHANNEL_BUSY_WINDOW_S = 0.1;
