import type { Reception } from './reception.js';

/** A frame waiting in a car's MAC queue. */
export interface QueuedFrame<F> {
  frame: F;
  sentAt: number;
  enqueuedAt: number;
}

/**
 * One car's radio as the medium model sees it: its MAC queue and DCF backoff, what it is sending or
 * locked on, the energy it senses, and its busy time for the channel busy ratio.
 */
export class Station<F, T> {
  readonly queue: QueuedFrame<F>[] = [];
  queueHead = 0;
  transmitting: T | undefined;
  locked: Reception<T> | undefined;
  /** Every signal on the air here (locked or not) [mW], and how many there are (to zero the sum exactly). */
  energyMw = 0;
  signals = 0;
  /** Signals on the air here at or above the carrier-sense threshold: each one alone keeps the medium busy. */
  sensed = 0;
  busy = false;
  busySince = 0;
  /** Busy time up to `busySince` (or to the last idle start) [s]. */
  busyTotal = 0;
  /** Busy total at the start of the current CBR window. */
  busyAtWindowStart = 0;
  /** When the medium last turned idle here. */
  idleSince = 0;
  /** The last reception failed: the next idle period starts with EIFS instead of DIFS. */
  eifs = false;
  /** Backoff slots left to count down (exact while the medium is busy; counted lazily while idle). */
  backoff = 0;
  /** When the pending access happens, and the token that cancels it. */
  accessAt = Number.NaN;
  accessToken = 0;

  constructor(
    readonly index: number,
    readonly name: string,
  ) {}

  get queued(): number {
    return this.queue.length - this.queueHead;
  }

  head(): QueuedFrame<F> | undefined {
    return this.queue[this.queueHead];
  }

  dequeue(): QueuedFrame<F> | undefined {
    const item = this.queue[this.queueHead];
    if (!item) return undefined;
    this.queue[this.queueHead++] = undefined as unknown as QueuedFrame<F>;
    if (this.queueHead > 64 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    return item;
  }

  /** Busy time up to `t` [s]. */
  busyTimeAt(t: number): number {
    return this.busyTotal + (this.busy ? t - this.busySince : 0);
  }
}
