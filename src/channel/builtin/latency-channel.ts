import { createRandom, deriveSeed } from '../../util/random.js';
import { type ChannelFrame, type Delivery, serialisationTime, type V2VChannel } from '../frames.js';
import { ArrivalQueue } from './arrival-queue.js';

export interface LatencyChannelOptions {
  /** Fixed one-way delay after a frame has been serialised [s]. */
  delay: number;
  /** Upper bound of the extra delay per frame and receiver, uniform in [0, jitter] [s]. */
  jitter: number;
  /** Each sender's own transmit rate [bit/s]. */
  dataRate: number;
  /** Probability each receiver independently loses a frame. */
  loss: number;
  seed: number;
}

/**
 * A channel whose delay never limits capacity: each sender has its own transmit queue at
 * `dataRate` (a frame starts serialising when the sender's previous frame has finished), and a
 * frame reaches each receiver `delay` plus a uniform draw from [0, jitter] after it has been
 * serialised. Jitter is drawn per frame and receiver, so frames can overtake one another (as with
 * netem's jitter); deliveries come out in arrival order. Loss and jitter come from two seeded
 * streams, so changing `loss` does not change the jitter of the frames that arrive.
 */
export class LatencyChannel<T> implements V2VChannel<T> {
  private readonly senderFreeAt = new Map<string, number>();
  private readonly arrivals = new ArrivalQueue<T>();
  private readonly lossDraw: () => number;
  private readonly jitterDraw: () => number;

  constructor(private readonly opts: LatencyChannelOptions) {
    this.lossDraw = createRandom(deriveSeed(opts.seed, 'loss'));
    this.jitterDraw = createRandom(deriveSeed(opts.seed, 'jitter'));
  }

  /** Queues a frame at time `now`; returns when the sender has finished serialising it. */
  send(frame: ChannelFrame<T>, now: number): number {
    const start = Math.max(now, this.senderFreeAt.get(frame.from) ?? 0);
    const sent = start + serialisationTime(frame.sizeBytes, this.opts.dataRate);
    this.senderFreeAt.set(frame.from, sent);
    for (const to of frame.to) {
      const jitter = this.opts.jitter > 0 ? this.jitterDraw() * this.opts.jitter : 0;
      const lost = this.opts.loss > 0 && this.lossDraw() < this.opts.loss;
      this.arrivals.add({
        payload: frame.payload,
        to,
        at: sent + this.opts.delay + jitter,
        ...(lost ? { lost: 'channel-loss' as const } : {}),
      });
    }
    return sent;
  }

  deliverDue(now: number): Delivery<T>[] {
    return this.arrivals.takeDue(now);
  }
}
