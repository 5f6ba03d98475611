import type { Delivery } from '../frames.js';

/** Times within this of `now` count as due: sums of float delays land a hair after the step they meant. */
const DUE_TOLERANCE_S = 1e-12;

/** Deliveries in flight, kept sorted by arrival time; equal times keep the order they were added in. */
export class ArrivalQueue<T> {
  private readonly inFlight: Delivery<T>[] = [];

  add(delivery: Delivery<T>): void {
    let lo = 0;
    let hi = this.inFlight.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.inFlight[mid].at <= delivery.at) lo = mid + 1;
      else hi = mid;
    }
    this.inFlight.splice(lo, 0, delivery);
  }

  takeDue(now: number): Delivery<T>[] {
    let n = 0;
    while (n < this.inFlight.length && this.inFlight[n].at <= now + DUE_TOLERANCE_S) n++;
    return n ? this.inFlight.splice(0, n) : [];
  }
}
