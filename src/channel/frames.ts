/** Bytes a datagram adds on the wire: UDP 8 + IPv4 20 + Ethernet header and trailer 18. */
export const FRAME_OVERHEAD_BYTES = 46;

export interface ChannelFrame<T> {
  payload: T;
  from: string;
  /** Receivers this frame is addressed to (all others for a broadcast). */
  to: readonly string[];
  /** UDP payload bytes; the wire adds FRAME_OVERHEAD_BYTES. */
  sizeBytes: number;
}

export interface Delivery<T> {
  payload: T;
  to: string;
  /** Virtual time the frame reaches the receiver [s]. */
  at: number;
}

/** What the simulated runtime needs from a channel model: frames in, deliveries out, in virtual time. */
export interface V2VChannel<T> {
  /** Queues a frame handed to the channel at time `now`. */
  send(frame: ChannelFrame<T>, now: number): void;
  /** Removes and returns, in arrival order, every delivery due at or before `now`. */
  deliverDue(now: number): Delivery<T>[];
}

/** Seconds a frame takes to serialise onto a link of `dataRate` bit/s. */
export const serialisationTime = (sizeBytes: number, dataRate: number) => ((sizeBytes + FRAME_OVERHEAD_BYTES) * 8) / dataRate;
