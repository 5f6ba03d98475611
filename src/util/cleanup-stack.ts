/**
 * Cleanups run in reverse order of registration, each once, however the work between ended
 * (Node 20 has `Symbol.asyncDispose` but not `AsyncDisposableStack`). A cleanup that throws does
 * not stop the others; its error is kept, the first one first, for the caller to report.
 */
export class CleanupStack implements AsyncDisposable {
  private readonly cleanups: { what: string; run: () => unknown }[] = [];
  private readonly failures: { what: string; error: unknown }[] = [];

  /** Registers `run` (named `what` in failures) and returns the value it cleans up after. */
  defer(what: string, run: () => unknown): void {
    this.cleanups.push({ what, run });
  }

  /** Runs every cleanup registered so far, newest first; returns what failed in this call (a second call does not repeat it). */
  async runAll(): Promise<{ what: string; error: unknown }[]> {
    const failed: { what: string; error: unknown }[] = [];
    while (this.cleanups.length) {
      const c = this.cleanups.pop()!;
      try {
        await c.run();
      } catch (error) {
        failed.push({ what: c.what, error });
      }
    }
    this.failures.push(...failed);
    return failed;
  }

  /** Everything that failed so far, the first one first. */
  get failed(): readonly { what: string; error: unknown }[] {
    return this.failures;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.runAll();
  }
}
