/** Where typed events go: a run's or a sweep's core emits them and never prints. */
export interface EventSink<E> {
  emit(event: E): void;
}

/** The one event bus: reporters (plain lines, ink, JSON) subscribe with `on`, which returns the unsubscriber. */
export class EventBus<E> implements EventSink<E> {
  private listeners: ((e: E) => void)[] = [];
  on(listener: (e: E) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
  emit(event: E): void {
    for (const l of this.listeners) l(event);
  }
}
