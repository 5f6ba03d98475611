import { compileChannelProgram } from '../channel/ns3/compile.js';
import { startChannel } from '../channel/ns3/realtime-channel.js';
import { computeContextHash, repoBuildContext } from '../host/docker/build-context.js';
import { describePruned, ensureImages, requireVehicleImages } from '../host/docker/images.js';
import { resolveHostsFile } from '../host/hosts-file/load-hosts-file.js';
import { readLinkBytes } from '../host/network/link-bytes.js';
import { connectControlLink } from '../runtime/emulated/control-link.js';
import type { EmulatedRunDeps } from '../runtime/emulated/emulated-deps.js';
import { type EmulatedRunOptions, type EmulatedRunOutcome, runEmulated } from '../runtime/emulated/run-emulated.js';
import { refuseUnsupportedExternal } from '../scenario/external-device.js';
import { loadScenario } from '../scenario/load-scenario.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { packageRoot } from '../util/package-root.js';
import { remoteHosts } from './host-engines.js';
import { realHostPorts } from './host-ports.js';
import { lightCarsEnabled } from './light-cars.js';

/** The real ports: Docker engine, host networking (direct as root, sudo otherwise), commands, ns-3. */
export function createEmulatedDeps(): EmulatedRunDeps {
  const { docker, commands: runner, hostNet } = realHostPorts();
  const root = packageRoot();
  return {
    docker,
    hostNet,
    runner,
    connectControl: connectControlLink,
    linkBytes: readLinkBytes,
    repoRoot: root,
    lightCarProgram: lightCarsEnabled(),
    async prepareImages(report) {
      const contextHash = await computeContextHash(root);
      await ensureImages({ docker, context: repoBuildContext(root) }, { contextHash }, (e) => {
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

export interface EmulatedScenarioOptions extends EmulatedRunOptions {
  /** Default: this host's real ports (createEmulatedDeps). */
  deps?: EmulatedRunDeps;
  /** A hosts file (`--hosts`; else `$CAVSIM_HOSTS`): cars are placed on its hosts (docs/multi-host.md). */
  hostsFile?: string;
}

/** `cavsim up --runtime docker`: validate, then run emulated in Docker with an ns-3 channel. */
export async function runScenarioEmulated(file: string, opts: EmulatedScenarioOptions = {}): Promise<EmulatedRunOutcome> {
  const scenario = await loadScenario(file, { overrides: opts.overrides, runtime: 'docker' });
  return runResolvedEmulated(scenario, opts);
}

/** An emulated run of a scenario already resolved (`cavsim replay` runs scenario.resolved.json again). */
export async function runResolvedEmulated(scenario: ResolvedScenario, opts: EmulatedScenarioOptions = {}): Promise<EmulatedRunOutcome> {
  refuseUnsupportedExternal(scenario, 'docker');
  const { deps: given, hostsFile, ...options } = opts;
  const hosts = await resolveHostsFile(hostsFile);
  const deps = given ?? createEmulatedDeps();
  await deps.docker.ping();
  await requireVehicleImages(deps.docker, scenario.vehicles);
  const remote = hosts ? await remoteHosts(hosts) : undefined;
  return runEmulated(scenario, remote ? { ...deps, remote } : deps, options);
}
