import { performance } from 'node:perf_hooks';

/** Milliseconds from the call to each phase of an emulated run (`phases_ms` in summary.json, and the outcome's). */
export class RunPhases {
  private readonly t0 = performance.now();
  /** The run's start on the wall clock [epoch ms]. */
  readonly startedAtMs = Date.now();
  readonly ms: Record<string, number> = {};

  mark(name: string): void {
    this.ms[name] = Math.round(performance.now() - this.t0);
  }

  /** Records how long `work` took as phase `name`. */
  async time<T>(name: string, work: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await work();
    } finally {
      this.ms[name] = Math.round(performance.now() - t);
    }
  }

  /** Seconds since the run was started (the `start` command); 0 when it never was. */
  sinceStart(): number {
    return this.ms.started === undefined ? 0 : (performance.now() - this.t0 - this.ms.started) / 1000;
  }
}
