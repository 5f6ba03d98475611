import { setTimeout as sleep } from 'node:timers/promises';
import { epochNs } from '../v2v/wire.js';

/** The one owner of wall-clock time in the simulator and vehicle processes. */
export interface WallClock {
  /** Epoch nanoseconds; every container reads the same host clock. */
  nowNs(): bigint;
  /** Resolves at `targetNs` (or at once if it has passed, or when `signal` aborts). */
  sleepUntil(targetNs: bigint, signal?: AbortSignal): Promise<void>;
}

/**
 * Timers alone wake a millisecond or more late, so the last stretch before the target is spent
 * yielding with setImmediate: sockets are still served, and the step starts within microseconds.
 */
const SPIN_WINDOW_NS = 1_500_000n;

export const systemWallClock: WallClock = {
  nowNs: epochNs,
  async sleepUntil(targetNs, signal) {
    for (;;) {
      if (signal?.aborted) return;
      const remaining = targetNs - epochNs();
      if (remaining <= 0n) return;
      if (remaining > SPIN_WINDOW_NS) {
        await sleep(Number(remaining - SPIN_WINDOW_NS) / 1e6, undefined, { signal }).catch(() => undefined);
      } else {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  },
};
