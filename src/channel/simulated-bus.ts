import { createRandom } from '../util/random.js';

/** Bytes a datagram adds on the wire: UDP 8 + IPv4 20 + Ethernet header and trailer 18. */
export const FRAME_OVERHEAD_BYTES = 46;

export interface BusFrame<T> {
  payload: T;
  from: string;
  /** Receivers this frame is addressed to (all others for a broadcast). */
  to: readonly string[];
  sizeBytes: number;
}

export interface Delivery<T> {
  payload: T;
  to: string;
  at: number;
}

/**
 * The simulated runtime's model of ns-3's CSMA channel: one shared bus; a frame occupies it for
 * its transmission time plus the whole propagation delay (as ns-3's CsmaChannel does, which is why
 * a 10 ms bus carries only ~100 frames/s); frames wait in FIFO order; each receiver independently
 * loses a frame with probability `loss`, drawn from a seeded stream.
 */
export class SimulatedBus<T> {
  private busFreeAt = 0;
  private inFlight: Delivery<T>[] = [];
  private readonly random: () => number;

  constructor(private readonly opts: { delay: number; dataRate: number; loss: number; seed: number }) {
    this.random = createRandom(opts.seed);
  }

  /** Queues a frame at time `now`; returns when it will finish occupying the bus. */
  send(frame: BusFrame<T>, now: number): number {
    const start = Math.max(now, this.busFreeAt);
    const transmit = ((frame.sizeBytes + FRAME_OVERHEAD_BYTES) * 8) / this.opts.dataRate;
    const arrival = start + transmit + this.opts.delay;
    this.busFreeAt = arrival;
    for (const to of frame.to) {
      if (this.opts.loss > 0 && this.random() < this.opts.loss) continue;
      this.inFlight.push({ payload: frame.payload, to, at: arrival });
    }
    return arrival;
  }

  /** Removes and returns, in arrival order, every delivery due at or before `now`. */
  deliverDue(now: number): Delivery<T>[] {
    if (!this.inFlight.length || this.inFlight[0].at > now + 1e-12) return [];
    const due = this.inFlight.filter((d) => d.at <= now + 1e-12);
    this.inFlight = this.inFlight.filter((d) => d.at > now + 1e-12);
    return due;
  }
}
