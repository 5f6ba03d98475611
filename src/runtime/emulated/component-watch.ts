import { setMaxListeners } from 'node:events';
import { constants } from 'node:os';
import { ComponentFailedError, type FailedComponent } from '../../run/outcome.js';
import { lastLines } from '../../util/last-lines.js';
import type { DockerPort } from '../../host/docker/docker-port.js';

/** How a component went away; `undefined` from a death promise means "not a failure". */
export type Death = Omit<FailedComponent, 'component'>;

/** Time a setup step's own error waits for a component's death to be reported, which names the cause better. */
export const DEFAULT_SETTLE_MS = 800;
/** An engine that fails to answer a wait is asked again this often. */
const REWAIT_MS = 200;

/**
 * Watches every component of an emulated run (containers, ns-3, the control link) for the whole
 * run. The first one that dies while the run is not ending becomes the run's failure; `guard`
 * makes any step of the run give way to it at once.
 */
export class ComponentWatch {
  private ending = false;
  private first?: ComponentFailedError;
  private notify!: (failure: ComponentFailedError) => void;
  private readonly aborter = new AbortController();
  /** Resolves with the first component failure. */
  readonly failed = new Promise<ComponentFailedError>((resolve) => (this.notify = resolve));

  constructor(private readonly settleMs = DEFAULT_SETTLE_MS) {
    // One listener per watched container: a run of 32 vehicles is not a leak.
    setMaxListeners(0, this.aborter.signal);
  }

  /** Aborted by `close`: pending waits on the engine end. */
  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  get failure(): ComponentFailedError | undefined {
    return this.first;
  }

  /** The run is over: from now on components may exit. */
  runEnding(): void {
    this.ending = true;
  }

  /**
   * `graceMs`: how long after the death the run still counts as not ending, for components that
   * exit as a consequence of the end (vehicles told to stop) or of another component's death.
   */
  watch(component: string, death: Promise<Death | undefined>, opts: { graceMs?: number; when?: string } = {}): void {
    void death.then(async (d) => {
      if (!d || this.ending || this.signal.aborted) return;
      if (opts.graceMs) await new Promise((r) => setTimeout(r, opts.graceMs));
      if (this.ending || this.signal.aborted || this.first) return;
      this.first = new ComponentFailedError({ component, ...d }, opts.when ?? 'during the run');
      this.notify(this.first);
    });
  }

  /** Runs a step of the run; a component's death rejects it at once, and names the cause of its own error. */
  async guard<T>(step: Promise<T>): Promise<T> {
    let settled = false;
    try {
      return await Promise.race([
        step,
        this.failed.then((f) => {
          if (!settled) throw f;
          return new Promise<never>(() => {});
        }),
      ]);
    } catch (err) {
      if (err instanceof ComponentFailedError) throw err;
      const cause = await Promise.race([this.failed, new Promise<undefined>((r) => setTimeout(() => r(undefined), this.settleMs))]);
      throw cause ?? err;
    } finally {
      settled = true;
    }
  }

  /** Stops watching: what happens from now on (teardown) is cavsim's own doing. */
  close(): void {
    this.aborter.abort();
  }
}

/**
 * Waits for a container to stop and describes how, with its last log lines. A container removed
 * by someone else counts as dead; an engine hiccup is retried; `signal` (teardown) ends the wait.
 */
export async function containerDeath(docker: DockerPort, name: string, signal: AbortSignal): Promise<Death | undefined> {
  for (;;) {
    let exit: { exitCode: number } | undefined | 'error';
    try {
      exit = await docker.waitContainer(name, { signal });
    } catch {
      exit = 'error';
    }
    if (signal.aborted) return undefined;
    if (exit === 'error') {
      await new Promise((r) => setTimeout(r, REWAIT_MS));
      continue;
    }
    if (!exit) return { exit_status: null, signal: null, last_log_lines: ['the container was removed'] };
    const logs = await docker.logs?.(name).catch(() => undefined);
    return { exit_status: exit.exitCode, signal: signalOfExitStatus(exit.exitCode), last_log_lines: lastLines(logs) };
  }
}

/** Docker (and its init) report death by signal N as exit status 128 + N. */
export function signalOfExitStatus(status: number): string | null {
  if (status <= 128 || status > 128 + 64) return null;
  const found = Object.entries(constants.signals).find(([, n]) => n === status - 128);
  return found ? found[0] : null;
}
