import type { ChannelBusySample, ChannelFrame, Delivery, V2VChannel } from './frames.js';

/**
 * A channel opened on its first frame: a run whose cars send nothing (no V2V apps) never starts
 * the ns-3 process at all.
 */
export class DeferredChannel<T> implements V2VChannel<T> {
  private inner: V2VChannel<T> | undefined;

  constructor(private readonly open: () => V2VChannel<T>) {}

  send(frame: ChannelFrame<T>, now: number): void {
    this.inner ??= this.open();
    this.inner.send(frame, now);
  }

  async advanceTo(now: number): Promise<void> {
    await this.inner?.advanceTo?.(now);
  }

  async settle(now: number): Promise<void> {
    const inner = this.inner;
    if (inner?.settle) await inner.settle(now);
    else await inner?.advanceTo?.(now);
  }

  prefetch(next: number): void {
    this.inner?.prefetch?.(next);
  }

  deliverDue(now: number): Delivery<T>[] {
    return this.inner ? this.inner.deliverDue(now) : [];
  }

  /** Until a car sends, there is no channel and nothing to measure. */
  takeChannelBusy(now: number): ChannelBusySample[] {
    return this.inner?.takeChannelBusy?.(now) ?? [];
  }

  async close(): Promise<void> {
    await this.inner?.close?.();
  }
}
