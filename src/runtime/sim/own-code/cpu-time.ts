import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Reads a process's CPU time [s] as the tick barrier needs it, twice per tick: from
 * /proc/<pid>/schedstat (nanoseconds its main thread has run, unlike the 10 ms ticks of
 * /proc/<pid>/stat), kept open and re-read from offset 0, which regenerates it. The main thread is
 * where a vehicle's control code runs; helper threads (a runtime's GC or I/O pool) are not counted.
 */
export class CpuClock {
  private fd: number | undefined;
  private readonly buffer = Buffer.alloc(96);

  constructor(pid: number) {
    try {
      this.fd = openSync(`/proc/${pid}/schedstat`, 'r');
    } catch {
      this.fd = undefined;
    }
  }

  /** Seconds so far; undefined where it cannot be read (not Linux, no schedstats, the process is gone). */
  seconds(): number | undefined {
    if (this.fd === undefined) return undefined;
    try {
      const n = readSync(this.fd, this.buffer, 0, this.buffer.length, 0);
      const text = this.buffer.toString('latin1', 0, n);
      const ns = Number(text.slice(0, text.indexOf(' ')));
      return Number.isFinite(ns) ? ns / 1e9 : undefined;
    } catch {
      return undefined;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
