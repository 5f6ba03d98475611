import { LockstepProcess } from './lockstep-process.js';

/** A process left idle this long exits: a sweep's next run comes within milliseconds. */
const IDLE_MS = 30_000;

/**
 * Serving lock-step ns-3 processes that outlive one run, so a sweep worker or a benchmark pays
 * ns-3's start once, not per run. Its owner creates it and closes it; a run given no pool starts
 * its own process and ends it with the run.
 */
export class LockstepProcessPool implements Disposable {
  private readonly idle = new Map<string, { process: LockstepProcess; timer: NodeJS.Timeout }[]>();
  private closed = false;

  /** A serving process for `binary`: an idle one from an earlier run, or a new one. */
  acquire(binary: string): LockstepProcess {
    const waiting = this.idle.get(binary) ?? [];
    while (waiting.length) {
      const { process, timer } = waiting.pop()!;
      clearTimeout(timer);
      if (process.alive) return process;
    }
    return LockstepProcess.spawn(binary);
  }

  /** Starts a process for `binary` now, unless one is idle, so that a run about to begin finds it set up. */
  prewarm(binary: string): void {
    if (!this.closed && !(this.idle.get(binary) ?? []).some((w) => w.process.alive)) this.release(LockstepProcess.spawn(binary));
  }

  /** Takes back a process whose run ended cleanly; it waits for the next run, or exits when idle too long. */
  release(process: LockstepProcess): void {
    if (!process.alive) return;
    if (this.closed) return void process.close();
    const waiting = this.idle.get(process.binary) ?? [];
    this.idle.set(process.binary, waiting);
    const timer = setTimeout(() => {
      const at = waiting.findIndex((w) => w.process === process);
      if (at >= 0) waiting.splice(at, 1);
      process.close();
    }, IDLE_MS);
    timer.unref();
    waiting.push({ process, timer });
  }

  /** How many live processes for `binary` wait for a run. */
  idleCount(binary: string): number {
    return (this.idle.get(binary) ?? []).filter((w) => w.process.alive).length;
  }

  /**
   * Ends every idle process; a process released later is ended at once. Idempotent. Resolves when
   * they have exited, or after `waitMs`: an idle process does not keep Node alive, so the wait holds
   * it with a timer of its own, and a command that awaits it leaves no ns-3 behind.
   */
  async close(waitMs = 1500): Promise<void> {
    this.closed = true;
    const exits: Promise<void>[] = [];
    for (const waiting of this.idle.values()) {
      for (const { process, timer } of waiting.splice(0)) {
        clearTimeout(timer);
        process.close();
        exits.push(process.exited);
      }
    }
    if (!exits.length) return;
    let held: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(exits), new Promise((resolve) => (held = setTimeout(resolve, waitMs)))]);
    clearTimeout(held);
  }

  [Symbol.dispose](): void {
    void this.close();
  }
}
