import { loadScenario } from '../scenario/load-scenario.js';
import { connectDocker } from '../host/docker/dockerode-port.js';
import { describePruned, ensureImages, requireVehicleImages } from '../host/docker/images.js';
import { computeContextHash, repoBuildContext } from '../host/docker/build-context.js';
import { createHostNetOps } from '../host/network/hostnet-port.js';
import { createCommandRunner } from '../host/exec/command-runner.js';
import { compileChannelProgram } from '../channel/ns3/compile.js';
import { startChannel } from '../channel/ns3/realtime-channel.js';
import { defaultRunsDir } from '../run/run-folder.js';
import { runEmulated, type EmulatedRunOutcome } from '../runtime/emulated/run-emulated.js';
import { connectControlLink } from '../runtime/emulated/control-link.js';
import type { EmulatedRunDeps } from '../runtime/emulated/emulated-deps.js';
import type { RunEvents } from '../run/events.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { packageRoot } from '../util/package-root.js';

export const REPO_ROOT = packageRoot();

/** The real ports: Docker engine, host networking (direct as root, sudo otherwise), commands, ns-3. */
export function createEmulatedDeps(): EmulatedRunDeps {
  const runner = createCommandRunner();
  const docker = connectDocker();
  return {
    docker,
    hostNet: createHostNetOps(runner),
    runner,
    connectControl: connectControlLink,
    repoRoot: REPO_ROOT,
    async prepareImages(report) {
      const contextHash = await computeContextHash(REPO_ROOT);
      await ensureImages({ docker, context: repoBuildContext(REPO_ROOT) }, { contextHash }, (e) => {
        if (e.type === 'image-build-start') report(`building ${e.tag} (${e.reason})`);
        if (e.type === 'image-build-done') report(`built ${e.tag} in ${(e.elapsedMs / 1000).toFixed(1)} s`);
        if (e.type === 'images-pruned' && (e.removed.length || e.error)) report(describePruned(e));
      });
    },
    channel: {
      compile: (source) => compileChannelProgram(source, { runner }),
      start: startChannel,
    },
  };
}

export interface EmulatedScenarioOptions {
  overrides?: readonly string[];
  runsDir?: string;
  runId?: string;
  events?: RunEvents;
  keep?: boolean;
  shouldStop?: () => boolean;
  deps?: EmulatedRunDeps;
  /** The command line, for the manifest (the CLI passes its arguments). */
  command?: readonly string[];
  /** Whether run.mcap is written when the scenario does not say (`record.mcap`); sweeps pass false. */
  mcapByDefault?: boolean;
}

/** `cavsim up --runtime docker`: validate, then run emulated in Docker with an ns-3 channel. */
export async function runScenarioEmulated(file: string, opts: EmulatedScenarioOptions = {}): Promise<EmulatedRunOutcome> {
  const scenario = await loadScenario(file, { overrides: opts.overrides, runtime: 'docker' });
  return runResolvedEmulated(scenario, opts);
}

/** An emulated run of a scenario already resolved (`cavsim replay` runs scenario.resolved.json again). */
export async function runResolvedEmulated(scenario: ResolvedScenario, opts: EmulatedScenarioOptions = {}): Promise<EmulatedRunOutcome> {
  for (const warning of scenario.warnings ?? []) opts.events?.emit({ type: 'log', level: 'warn', message: warning });
  const deps = opts.deps ?? createEmulatedDeps();
  await deps.docker.ping();
  await requireVehicleImages(deps.docker, scenario.vehicles);
  return runEmulated(scenario, deps, { runsDir: opts.runsDir ?? defaultRunsDir(), runId: opts.runId, events: opts.events, keep: opts.keep, shouldStop: opts.shouldStop, overrides: opts.overrides, command: opts.command, mcapByDefault: opts.mcapByDefault });
}
