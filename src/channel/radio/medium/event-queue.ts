/** Events in virtual time, earliest first; events at the same time come out in the order they were added. */
export class EventQueue<E> {
  private times: number[] = [];
  private seqs: number[] = [];
  private events: E[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.events.length;
  }

  /** The time of the earliest event, or Infinity when there is none. */
  peekTime(): number {
    return this.events.length ? this.times[0] : Number.POSITIVE_INFINITY;
  }

  push(time: number, event: E): void {
    let i = this.events.length;
    this.times.push(time);
    this.seqs.push(this.nextSeq++);
    this.events.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): E | undefined {
    const n = this.events.length;
    if (!n) return undefined;
    const top = this.events[0];
    this.swap(0, n - 1);
    this.times.pop();
    this.seqs.pop();
    this.events.pop();
    let i = 0;
    const size = n - 1;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && this.before(l, m)) m = l;
      if (r < size && this.before(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }

  private before(a: number, b: number): boolean {
    return this.times[a] < this.times[b] || (this.times[a] === this.times[b] && this.seqs[a] < this.seqs[b]);
  }

  private swap(a: number, b: number): void {
    const t = this.times[a];
    this.times[a] = this.times[b];
    this.times[b] = t;
    const s = this.seqs[a];
    this.seqs[a] = this.seqs[b];
    this.seqs[b] = s;
    const e = this.events[a];
    this.events[a] = this.events[b];
    this.events[b] = e;
  }
}
