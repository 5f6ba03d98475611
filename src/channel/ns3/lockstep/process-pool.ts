import { LockstepProcess } from './lockstep-process.js';

/** A process left idle this long exits: a sweep's next run comes within milliseconds. */
const IDLE_MS = 30_000;

const idle = new Map<string, { process: LockstepProcess; timer: NodeJS.Timeout }[]>();

/**
 * A serving lock-step process for `binary`: an idle one from an earlier run in this Node process
 * (so a sweep or benchmark pays ns-3's start once per worker, not per run), or a new one.
 */
export function acquireLockstepProcess(binary: string): LockstepProcess {
  const waiting = idle.get(binary) ?? [];
  while (waiting.length) {
    const { process, timer } = waiting.pop()!;
    clearTimeout(timer);
    if (process.alive) return process;
  }
  return LockstepProcess.spawn(binary);
}

/** Starts a process for `binary` now, unless one is idle, so that a run about to begin finds it set up. */
export function prewarmLockstepProcess(binary: string): void {
  if (!(idle.get(binary) ?? []).some((w) => w.process.alive)) releaseLockstepProcess(LockstepProcess.spawn(binary));
}

/** Takes back a process whose run ended cleanly; it waits for the next run, or exits when idle too long. */
export function releaseLockstepProcess(process: LockstepProcess): void {
  if (!process.alive) return;
  const waiting = idle.get(process.binary) ?? [];
  idle.set(process.binary, waiting);
  const timer = setTimeout(() => {
    const at = waiting.findIndex((w) => w.process === process);
    if (at >= 0) waiting.splice(at, 1);
    process.close();
  }, IDLE_MS);
  timer.unref();
  waiting.push({ process, timer });
}

/** How many live processes for `binary` wait for a run. */
export function idleLockstepProcesses(binary: string): number {
  return (idle.get(binary) ?? []).filter((w) => w.process.alive).length;
}

/** Ends every idle process (tests, and callers that want none left behind before they exit). */
export function closeIdleLockstepProcesses(): void {
  for (const waiting of idle.values()) {
    for (const { process, timer } of waiting.splice(0)) {
      clearTimeout(timer);
      process.close();
    }
  }
}
