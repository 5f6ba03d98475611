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
 * Timers alone wake a millisecond or more late, so the last stretch before the target is slept in
 * the kernel (a futex wait, precise to tens of microseconds) instead of on a timer.
 */
const FINE_WINDOW_NS = 1_500_000n;

/**
 * Sockets are not read during the futex wait: it ends this much early, and what arrived meanwhile
 * (drive commands) is read in one turn of the event loop before the target.
 */
const DRAIN_MARGIN_NS = 60_000n;

const futexWord = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ns` without spinning: a wait on a word nobody ever wakes. */
function blockFor(ns: bigint): void {
  Atomics.wait(futexWord, 0, 0, Number(ns) / 1e6);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Two check phases have a poll phase between them, wherever in the event loop this was called. */
async function readPendingSockets(): Promise<void> {
  await nextTurn();
  await nextTurn();
}

export const systemWallClock: WallClock = {
  nowNs: epochNs,
  async sleepUntil(targetNs, signal) {
    for (;;) {
      if (signal?.aborted) return;
      const remaining = targetNs - epochNs();
      if (remaining <= 0n) return;
      if (remaining > FINE_WINDOW_NS) {
        await sleep(Number(remaining - FINE_WINDOW_NS) / 1e6, undefined, { signal }).catch(() => undefined);
      } else {
        // Spinning here cost the simulator 15 % of a core: CPU the vehicles' containers need.
        if (remaining > DRAIN_MARGIN_NS) blockFor(remaining - DRAIN_MARGIN_NS);
        await readPendingSockets();
      }
    }
  },
};
