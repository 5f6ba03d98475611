import { createRandom } from '../../util/random.js';
import { type ChannelFrame, type Delivery, serialisationTime, type V2VChannel } from '../frames.js';
import { ArrivalQueue } from './arrival-queue.js';

/**
 * The simulated runtime's model of ns-3's CSMA channel: one shared bus; a frame occupies it for
 * its transmission time plus the whole propagation delay (as ns-3's CsmaChannel does, which is why
 * a 10 ms bus carries only ~100 frames/s); frames wait in FIFO order; each receiver independently
 * loses a frame with probability `loss`, drawn from a seeded stream.
 */
export class CsmaBus<T> implements V2VChannel<T> {
  private busFreeAt = 0;
  private readonly arrivals = new ArrivalQueue<T>();
  private readonly random: () => number;

  constructor(private readonly opts: { delay: number; dataRate: number; loss: number; seed: number }) {
    this.random = createRandom(opts.seed);
  }

  /** Queues a frame at time `now`; returns when it will finish occupying the bus. */
  send(frame: ChannelFrame<T>, now: number): number {
    const start = Math.max(now, this.busFreeAt);
    const arrival = start + serialisationTime(frame.sizeBytes, this.opts.dataRate) + this.opts.delay;
    this.busFreeAt = arrival;
    for (const to of frame.to) {
      const lost = this.opts.loss > 0 && this.random() < this.opts.loss;
      this.arrivals.add({ payload: frame.payload, to, at: arrival, ...(lost ? { lost: 'channel-loss' as const } : {}) });
    }
    return arrival;
  }

  deliverDue(now: number): Delivery<T>[] {
    return this.arrivals.takeDue(now);
  }
}
