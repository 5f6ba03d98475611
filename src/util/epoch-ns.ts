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

function anchor(): bigint {
  const first = Date.now();
  for (;;) {
    const ms = Date.now();
    const hr = process.hrtime.bigint();
    if (ms !== first) return BigInt(ms) * 1_000_000n - hr;
  }
}

export function epochNs(): bigint {
  offsetNs ??= anchor();
  return offsetNs + process.hrtime.bigint();
}
