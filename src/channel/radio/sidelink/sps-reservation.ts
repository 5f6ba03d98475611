/** A reservation left unused this long is released (TS 36.321 5.14.1.1: no transmission on it in the last second). */
const UNUSED_RELEASE_SUBFRAMES = 1000;

/**
 * The reselection counter's range for a reservation interval (TS 36.321 5.14.1.1): 5-15 for 100 ms
 * and longer, 10-30 for 50 ms, 25-75 for 20 ms.
 */
export function counterRange(periodSubframes: number): [number, number] {
  if (periodSubframes >= 100) return [5, 15];
  if (periodSubframes >= 50) return [10, 30];
  return [25, 75];
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
  /** The subframe this car is scheduled to transmit in, or -1. */
  scheduledAt = -1;
  readonly queue: Q[] = [];
  queuedBytes = 0;

  constructor(readonly period: number) {}

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
    if (from - this.lastUsed > UNUSED_RELEASE_SUBFRAMES) return 'unused';
    if (this.queuedBytes > this.capacityBytes) return 'size';
    if (this.occurrenceFrom(from) - from >= budget) return 'latency';
    return undefined;
  }

  reserve(subframe: number, first: number, length: number, capacityBytes: number, counter: number): void {
    this.active = true;
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
