import { compileChannelProgram } from '../channel/ns3/compile.js';
import { startChannel } from '../channel/ns3/realtime-channel.js';
import { computeContextHash, repoBuildContext } from '../host/docker/build-context.js';
import { describePruned, ensureImages, requireVehicleImages } from '../host/docker/images.js';
import { readLinkBytes } from '../host/network/link-bytes.js';
import { connectControlLink } from '../runtime/emulated/control-link.js';
import type { EmulatedRunDeps } from '../runtime/emulated/emulated-deps.js';
import { type EmulatedRunOptions, type EmulatedRunOutcome, runEmulated } from '../runtime/emulated/run-emulated.js';
import { refuseUnsupportedExternal } from '../scenario/external-device.js';
import { loadScenario } from '../scenario/load-scenario.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { packageRoot } from '../util/package-root.js';
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
}

/** `cavsim up --runtime docker`: validate, then run emulated in Docker with an ns-3 channel. */
export async function runScenarioEmulated(file: string, opts: EmulatedScenarioOptions = {}): Promise<EmulatedRunOutcome> {
  const scenario = await loadScenario(file, { overrides: opts.overrides, runtime: 'docker' });
  return runResolvedEmulated(scenario, opts);
}

/** An emulated run of a scenario already resolved (`cavsim replay` runs scenario.resolved.json again). */
export async function runResolvedEmulated(scenario: ResolvedScenario, opts: EmulatedScenarioOptions = {}): Promise<EmulatedRunOutcome> {
  refuseUnsupportedExternal(scenario, 'docker');
  const { deps = createEmulatedDeps(), ...options } = opts;
  await deps.docker.ping();
  await requireVehicleImages(deps.docker, scenario.vehicles);
  return runEmulated(scenario, deps, options);
}
