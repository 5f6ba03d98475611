import type { Delivery } from '../../frames.js';

/**
 * Outcomes a radio decided ahead of the runtime's clock (a frame's end is known when it starts),
 * handed out once due, in time order: what `V2VChannel.deliverDue` returns.
 */
export class DueOutcomes<P> {
  private pending: Delivery<P>[] = [];

  push(outcome: Delivery<P>): void {
    this.pending.push(outcome);
  }

  /** Removes and returns, in time order, every outcome at or before `now`. */
  takeDue(now: number): Delivery<P>[] {
    const due: Delivery<P>[] = [];
    const later: Delivery<P>[] = [];
    for (const d of this.pending) (d.at <= now ? due : later).push(d);
    this.pending = later;
    return due.sort((a, b) => a.at - b.at);
  }
}
