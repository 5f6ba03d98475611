import type { ChannelFrame } from '../../frames.js';

/**
 * One frame on the air: who sent it, when, and what each car it reached above the floor got. Its
 * arrays span every car, too large to allocate per frame, so the channel reuses a transmission once
 * every receiver has its outcome (SpareTransmissions).
 */
export class Transmission<P> {
  frame!: ChannelFrame<P>;
  /** When the frame was handed to the channel. */
  sentAt = 0;
  from = 0;
  start = 0;
  end = 0;
  /** Receivers the signal reached above the floor, with what they got: the first `reachedCount` entries. */
  reachedCount = 0;
  readonly receivers: Int32Array;
  readonly powersMw: Float64Array;
  readonly delays: Float64Array;
  /** 1 for each car still owed an outcome. */
  readonly open: Uint8Array;
  /** This transmission's end in the event queue. */
  readonly endEvent = { kind: 'end' as const, tx: this };

  constructor(cars: number) {
    this.receivers = new Int32Array(cars);
    this.powersMw = new Float64Array(cars);
    this.delays = new Float64Array(cars);
    this.open = new Uint8Array(cars);
  }

  /** Starts over as `frame`'s transmission, with no receiver and no car owed an outcome. */
  reuse(frame: ChannelFrame<P>, sentAt: number, from: number, start: number, end: number): this {
    this.frame = frame;
    this.sentAt = sentAt;
    this.from = from;
    this.start = start;
    this.end = end;
    this.reachedCount = 0;
    this.open.fill(0);
    return this;
  }

  /** Appends a receiver the signal reached. */
  reach(receiver: number, powerMw: number, delay: number): void {
    const slot = this.reachedCount++;
    this.receivers[slot] = receiver;
    this.powersMw[slot] = powerMw;
    this.delays[slot] = delay;
  }
}

/** Transmissions that ended, for the next frames to reuse. */
export class SpareTransmissions<P> {
  private readonly spare: Transmission<P>[] = [];

  constructor(private readonly cars: number) {}

  /** A transmission of `frame` with no receiver yet and no car owed an outcome. */
  take(frame: ChannelFrame<P>, sentAt: number, from: number, start: number, end: number): Transmission<P> {
    return (this.spare.pop() ?? new Transmission<P>(this.cars)).reuse(frame, sentAt, from, start, end);
  }

  /** Back for reuse: every receiver has its outcome, and nothing refers to it any more. */
  give(tx: Transmission<P>): void {
    this.spare.push(tx);
  }
}
