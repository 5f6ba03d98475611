import { setMaxListeners } from 'node:events';
import { constants } from 'node:os';
import type { DockerPort } from '../../host/docker/docker-port.js';
import { isSameProcessAlive, type ProcessIdentity } from '../../host/exec/process-identity.js';
import { ComponentFailedError, type FailedComponent } from '../../run/outcome.js';
import { lastLines } from '../../util/last-lines.js';

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

  get isEnding(): boolean {
    return this.ending;
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

  private engineLostAt?: number;
  private engineError?: string;

  /** The Docker engine did not answer (a ping, or the end of a container): the first time is remembered. */
  readonly engineLost = (message: string): void => {
    if (this.ending || this.engineLostAt !== undefined) return;
    this.engineLostAt = Date.now();
    this.engineError = message;
  };

  /**
   * Containers watched through their processes for part of the run: a car that was paused or
   * stopped then could not be told from a healthy one. Given the run's start (epoch ms).
   */
  engineProblem(runStartMs: number): string | undefined {
    if (this.engineLostAt === undefined) return undefined;
    return `the Docker engine stopped answering ${((this.engineLostAt - runStartMs) / 1000).toFixed(1)} s into the run (${this.engineError}); its containers were watched through their processes from then on`;
  }

  /** Stops watching: what happens from now on (teardown) is cavsim's own doing. */
  close(): void {
    this.aborter.abort();
  }
}

/** How a container is watched while the engine does not answer. */
export interface EngineFallback {
  /** The container's init process on this host: while the engine is away, its life is the container's. */
  process?: ProcessIdentity;
  /** Told when the engine did not report the end of a container whose process ended. */
  onEngineLost?: (message: string) => void;
}

/**
 * Waits for a container to stop and describes how, with its last log lines. A container removed
 * by someone else counts as dead; `signal` (teardown) ends the wait. The engine's wait is backed by
 * the container's own process on the host: when that process ends and the engine does not report
 * it (stopped, restarting, its connection dropped), the death is still seen, and the engine named.
 */
export async function containerDeath(
  docker: DockerPort,
  name: string,
  signal: AbortSignal,
  fallback: EngineFallback = {},
): Promise<Death | undefined> {
  const processGone = fallback.process ? processEnd(fallback.process, signal) : new Promise<never>(() => {});
  for (;;) {
    const waited = waitOnce(docker, name, signal);
    const first = await Promise.race([waited, processGone]);
    if (signal.aborted) return undefined;
    // A healthy engine reports the exit at once; one that stays silent has gone away.
    const exit =
      first !== PROCESS_GONE
        ? first
        : await Promise.race([waited, new Promise<typeof ENGINE_SILENT>((r) => setTimeout(() => r(ENGINE_SILENT), ENGINE_REPORT_MS))]);
    if (signal.aborted) return undefined;
    if (first === PROCESS_GONE && (exit === ENGINE_SILENT || exit === ENGINE_ERROR)) {
      fallback.onEngineLost?.(`it did not report the end of ${name}`);
      return {
        exit_status: null,
        signal: null,
        how: 'ended while the Docker engine was not answering (seen from its process on the host)',
        last_log_lines: [],
      };
    }
    if (exit === ENGINE_ERROR || exit === ENGINE_SILENT) {
      await new Promise((r) => setTimeout(r, REWAIT_MS));
      continue;
    }
    if (!exit) return { exit_status: null, signal: null, last_log_lines: ['the container was removed'] };
    const logs = await docker.logs?.(name).catch(() => undefined);
    return { exit_status: exit.exitCode, signal: signalOfExitStatus(exit.exitCode), last_log_lines: lastLines(logs) };
  }
}

const PROCESS_GONE = 'process-gone';
const ENGINE_SILENT = 'engine-silent';
const ENGINE_ERROR = 'engine-error';
/** How long the engine gets to report a container whose process has ended. */
const ENGINE_REPORT_MS = 2000;
/** How often a watched container's process is looked at. */
const PROCESS_POLL_MS = 250;

/** One wait on the engine; a failed one (a hiccup, or the engine gone) is asked again by the caller. */
async function waitOnce(
  docker: DockerPort,
  name: string,
  signal: AbortSignal,
): Promise<{ exitCode: number } | undefined | typeof ENGINE_ERROR> {
  try {
    return await docker.waitContainer(name, { signal });
  } catch {
    return ENGINE_ERROR;
  }
}

async function processEnd(process: ProcessIdentity, signal: AbortSignal): Promise<typeof PROCESS_GONE> {
  while (!signal.aborted && isSameProcessAlive(process)) await new Promise((r) => setTimeout(r, PROCESS_POLL_MS));
  return signal.aborted ? new Promise<never>(() => {}) : PROCESS_GONE;
}

/** Docker (and its init) report death by signal N as exit status 128 + N. */
export function signalOfExitStatus(status: number): string | null {
  if (status <= 128 || status > 128 + 64) return null;
  const found = Object.entries(constants.signals).find(([, n]) => n === status - 128);
  return found ? found[0] : null;
}
