import { basename } from 'node:path';
import { builtinChannelScript } from '../../channel/ns3/compile.js';
import { writeObstacleGrid } from '../../channel/ns3/lockstep/obstacle-grid-file.js';
import type { StartedChannel } from '../../channel/ns3/realtime-channel.js';
import { ExternalProcessError } from '../../errors.js';
import type { Journal } from '../../host/journal/journal.js';
import { ComponentFailedError } from '../../run/outcome.js';
import { RUN_FILES } from '../../run/run-files.js';
import type { RunSession } from '../../run/run-session.js';
import { loadScenarioMap } from '../../scenario/scenario-map.js';
import { lastLines } from '../../util/last-lines.js';
import type { ComponentWatch, Death } from './component-watch.js';
import type { EmulatedRunDeps } from './emulated-deps.js';
import { BUILTIN_CHANNEL, type EmulatedRunPlan } from './plan-emulated.js';

/**
 * The run's ns-3 channel program, real time, on the host: compiled (cached) before any container,
 * started once the network is up, watched from then on. Its process is journaled when it starts
 * (deps.channel.start), so the host side's teardown stops it, and a kept run keeps it.
 */
export class ChannelProcess {
  private source?: string;
  private binary?: string;
  private started?: StartedChannel;

  constructor(
    private readonly session: RunSession,
    private readonly deps: EmulatedRunDeps,
    private readonly plan: EmulatedRunPlan,
    private readonly emit: (phase: string, detail?: string) => void,
  ) {}

  async compile(): Promise<void> {
    this.emit('channel', 'compiling the ns-3 channel program (cached)');
    this.source = this.plan.channel.script === BUILTIN_CHANNEL ? builtinChannelScript() : this.plan.channel.script;
    this.binary = await this.deps.channel.compile(this.source);
  }

  /** Starts the compiled program; a program that fails to start is the run's failure, named `ns-3 channel`. */
  async start(journal: Journal, watch: ComponentWatch): Promise<StartedChannel> {
    const { plan, session } = this;
    if (plan.channel.obstacleFile) writeObstacleGrid(await loadScenarioMap(session.scenario), plan.channel.obstacleFile);
    this.emit('channel', `ns-3 ${basename(this.source!)} ${plan.channel.args.join(' ')}`);
    const logPath = session.folder.file(RUN_FILES.ns3Log);
    const started = await watch
      .guard(this.deps.channel.start({ binary: this.binary!, args: plan.channel.args, logPath, journal }))
      .catch((err: unknown) => {
        throw err instanceof ExternalProcessError
          ? new ComponentFailedError(
              { component: 'ns-3 channel', exit_status: err.exitCode ?? null, signal: null, last_log_lines: lastLines(err.stderrTail) },
              'while starting',
              `see ${logPath}`,
            )
          : err;
      });
    this.started = started;
    watch.watch(
      'ns-3 channel',
      started.exited.then((e): Death => ({ exit_status: e.code, signal: e.signal, last_log_lines: started.lastLogLines() })),
    );
    return started;
  }

  /** How far ns-3 fell behind real time, each sample [ms]; none when it never started. */
  lagSamplesMs(): number[] {
    return this.started?.lagSamplesMs() ?? [];
  }

  get pid(): number | undefined {
    return this.started?.identity.pid;
  }
}
