/** A retransmission's resource: `offset` slots after the first transmission, from subchannel `first`. */
export interface CopyResource {
  offset: number;
  first: number;
}

/**
 * The reselection counter's range for a reservation interval [ms] (TS 36.321 5.14.1.1, TS 38.321
 * 5.22.1.1): 5-15 at 100 ms and longer, else scaled by 100 / max(20, interval): 10-30 at 50 ms, 25-75 at 20 ms.
 */
export function counterRange(intervalMs: number): [number, number] {
  if (intervalMs >= 100) return [5, 15];
  const scale = 100 / Math.max(20, intervalMs);
  return [Math.ceil(5 * scale - 1e-9), Math.floor(15 * scale + 1e-9)];
}

/** Why a packet cannot go on the car's current reservation (TS 36.321 5.14.1.1's triggers). */
export type ReselectionTrigger = 'none' | 'counter' | 'unused' | 'size' | 'latency';

/**
 * One car's semi-persistent reservation: every `period` subframes from `next`, on `length`
 * subchannels from `first`, for `counter` more transmissions; and the packets waiting for it (the
 * MAC puts every one that fits into the next transport block).
 */
export class SpsReservation<Q extends { bytes: number }> {
  active = false;
  next = 0;
  first = 0;
  length = 0;
  capacityBytes = 0;
  counter = 0;
  lastUsed = 0;
  /** The resources of the blind retransmissions, relative to the first transmission (NR; none in LTE). */
  copies: CopyResource[] = [];
  /** The subframe this car is scheduled to transmit in, or -1. */
  scheduledAt = -1;
  readonly queue: Q[] = [];
  queuedBytes = 0;

  /** `unusedSlots`: a reservation left unused this long is released (TS 36.321 5.14.1.1, TS 38.321 5.22.1.1: 1 s, sl-ReselectAfter). */
  constructor(
    readonly period: number,
    private readonly unusedSlots = 1000,
  ) {}

  /** The first occurrence at or after `subframe`. */
  occurrenceFrom(subframe: number): number {
    if (this.next >= subframe) return this.next;
    return this.next + Math.ceil((subframe - this.next) / this.period) * this.period;
  }

  /**
   * What keeps the reservation from carrying what is queued, sent from subframe `from` on within
   * `budget` subframes: there is none yet, its counter ran out (and was not kept), it went unused for
   * a second, it is too small, or its next occurrence is too late.
   */
  trigger(from: number, budget: number): ReselectionTrigger | undefined {
    if (!this.active) return 'none';
    if (this.counter <= 0) return 'counter';
    if (from - this.lastUsed > this.unusedSlots) return 'unused';
    if (this.queuedBytes > this.capacityBytes) return 'size';
    if (this.occurrenceFrom(from) - from >= budget) return 'latency';
    return undefined;
  }

  reserve(subframe: number, first: number, length: number, capacityBytes: number, counter: number, copies: CopyResource[] = []): void {
    this.active = true;
    this.copies = copies;
    this.next = subframe;
    this.first = first;
    this.length = length;
    this.capacityBytes = capacityBytes;
    this.counter = counter;
    this.lastUsed = subframe;
  }

  /** Takes the queued packets that fit one transport block, oldest first. */
  takeBlock(): Q[] {
    let bytes = 0;
    let n = 0;
    while (n < this.queue.length && bytes + this.queue[n].bytes <= this.capacityBytes) bytes += this.queue[n++].bytes;
    this.queuedBytes -= bytes;
    return this.queue.splice(0, n);
  }
}
