import type { ResolvedScenario } from '../scenario/resolved.js';
import { CleanupStack } from '../util/cleanup-stack.js';
import { channelLoadWarnings } from './channel-load.js';
import type { RunEvents } from './events.js';
import { finishRun, type RunEnd } from './finish-run.js';

export type { RunEnd } from './finish-run.js';

import { defaultRunsDir, RunFolder, recordManifest } from './run-folder.js';
import type { RunSummary } from './summary.js';

/** What every run takes, whichever runtime runs it. Each runtime's options extend these. */
export interface RunOptions {
  overrides?: readonly string[];
  runsDir?: string;
  runId?: string;
  events?: RunEvents;
  shouldStop?: () => boolean;
  /** Why the run was asked to stop (default: 'stopped by the user'). */
  stopReason?: () => string | undefined;
  /** The command line, for the manifest (the CLI passes its arguments). */
  command?: readonly string[];
  /** Whether run.mcap is written when the scenario does not say (`record.mcap`); sweeps pass false. */
  mcapByDefault?: boolean;
}

/** Cleanups released together, ahead of the session's own (see `RunSession.scope`). */
export interface CleanupScope {
  defer(what: string, cleanup: () => unknown): void;
  release(): Promise<void>;
}

/**
 * One run of either runtime, from its folder to its summary. `open` writes the folder, the
 * resolved scenario and the manifest and says the scenario's warnings; `finish` decides the
 * verdict and writes summary.json once; `close` (also `await using`) runs what the runtime
 * deferred, newest first, finishes a run that was not finished (as failed, with the error that
 * cut it short), and then says the summary. A run opened is always closed with a summary.
 */
export class RunSession implements AsyncDisposable {
  private readonly cleanups = new CleanupStack();
  private summary: RunSummary | undefined;
  private closed: Promise<RunSummary> | undefined;

  private constructor(
    readonly folder: RunFolder,
    readonly scenario: ResolvedScenario,
    private readonly runtime: RunSummary['runtime'],
    private readonly manifest: { overrides?: readonly string[]; command?: readonly string[] },
    private readonly events: RunEvents | undefined,
  ) {}

  static async open(
    runtime: RunSummary['runtime'],
    scenario: ResolvedScenario,
    opts: RunOptions,
    images: Record<string, string> = {},
  ): Promise<RunSession> {
    const folder = RunFolder.create(opts.runsDir ?? defaultRunsDir(), opts.runId);
    folder.reserveSpace();
    scenario = withLoadWarnings(scenario, runtime);
    const session = new RunSession(folder, scenario, runtime, { overrides: opts.overrides, command: opts.command }, opts.events);
    folder.writeScenario(scenario);
    await session.recordImages(images);
    for (const warning of scenario.warnings ?? []) opts.events?.emit({ type: 'log', level: 'warn', message: warning });
    return session;
  }

  get runId(): string {
    return this.folder.runId;
  }

  /** Rewrites manifest.json with the ids of the images the run uses (tag -> id), once they are known. */
  async recordImages(images: Record<string, string>): Promise<void> {
    await recordManifest(this.folder, {
      runtime: this.runtime,
      scenario: this.scenario,
      overrides: this.manifest.overrides,
      command: this.manifest.command,
      ...(Object.keys(images).length ? { images } : {}),
    });
  }

  /** `cleanup` runs at `close`, or at `releaseResources`, whichever comes first. */
  defer(what: string, cleanup: () => unknown): void {
    this.cleanups.defer(what, cleanup);
  }

  /**
   * Cleanups of their own, for what lives only while the run runs: `release()` runs them (newest
   * first) before the run is summarised, while what was deferred earlier stays. A scope not released
   * by `close` is released then, before what was deferred before it. Failures become warnings.
   */
  scope(what: string): CleanupScope {
    const stack = new CleanupStack();
    const release = async () => this.warnOf(await stack.runAll());
    this.defer(what, release);
    return { defer: (w, cleanup) => stack.defer(w, cleanup), release };
  }

  /** Runs the deferred cleanups now (logs flushed before the summary reads them); failures become warnings. */
  async releaseResources(): Promise<void> {
    this.warnOf(await this.cleanups.runAll());
  }

  private warnOf(failed: readonly { what: string; error: unknown }[]): void {
    for (const f of failed) {
      this.events?.emit({
        type: 'log',
        level: 'warn',
        message: `closing ${f.what} failed: ${f.error instanceof Error ? f.error.message : String(f.error)}`,
      });
    }
  }

  /** Decides the run's verdict and writes summary.json; a second call returns the first summary. */
  finish(end: RunEnd): RunSummary {
    this.summary ??= finishRun({ folder: this.folder, scenario: this.scenario, runtime: this.runtime, ...end });
    return this.summary;
  }

  /** Idempotent. The summary event is the last thing a run says. */
  close(cutShortBy?: unknown): Promise<RunSummary> {
    this.closed ??= (async () => {
      await this.releaseResources();
      const summary = this.finish({ failure: cutShortBy ?? new Error('the run ended before its runtime said how') });
      this.events?.emit({ type: 'summary', summary, runDir: this.folder.dir });
      return summary;
    })();
    return this.closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** The scenario with the channel's offered-load warning (channel-load.ts) among its warnings, once: what `validate` says too. */
export function withLoadWarnings(scenario: ResolvedScenario, runtime: RunSummary['runtime']): ResolvedScenario {
  const extra = channelLoadWarnings(scenario, runtime).filter((w) => !scenario.warnings?.includes(w));
  return extra.length ? { ...scenario, warnings: [...(scenario.warnings ?? []), ...extra] } : scenario;
}
