/**
 * Wall-clock epoch nanoseconds with sub-microsecond resolution, the same in every process on the host.
 *
 * `performance.timeOrigin + performance.now()` is not: Node fixes timeOrigin at start-up, and here
 * it was seen up to 7 ms away from the wall clock, differently in each process, which shifted
 * latencies measured between two containers by as much. Instead the wall clock is read once at a
 * millisecond edge (to within one loop turn) and advanced by the monotonic clock, which the
 * kernel shares with every container and which NTP slews at the same rate as the wall clock.
 */
let offsetNs: bigint | undefined;

/** An edge bracketed more loosely than this was preempted: wait for the next one. */
const TIGHT_NS = 20_000n;
const MAX_EDGES = 20;

function anchor(): bigint {
  let before = process.hrtime.bigint(); // no later than the last read of the wall clock began
  let lastMs = Date.now();
  let best: { offset: bigint; width: bigint } | undefined;
  for (let edges = 0; edges < MAX_EDGES; ) {
    const start = process.hrtime.bigint();
    const ms = Date.now();
    const end = process.hrtime.bigint();
    if (ms !== lastMs) {
      // the wall clock passed ms * 1e6 after the previous read began and before this one ended
      const width = end - before;
      const offset = BigInt(ms) * 1_000_000n - (before + width / 2n);
      if (!best || width < best.width) best = { offset, width };
      if (width <= TIGHT_NS) break;
      edges++;
    }
    lastMs = ms;
    before = start;
  }
  return best!.offset;
}

export function epochNs(): bigint {
  offsetNs ??= anchor();
  return offsetNs + process.hrtime.bigint();
}
