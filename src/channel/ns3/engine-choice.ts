import { EnvironmentError, UserInputError } from '../../errors.js';
import { type CommandRunner, createCommandRunner } from '../../host/exec/command-runner.js';
import { channelKind, noNs3Program } from '../../scenario/channel-kinds.js';
import { addsDelayOrLoss } from '../../scenario/resolve-network.js';
import type { ChannelEngine, ResolvedNetwork } from '../../scenario/resolved.js';

/** pkg-config modules the lock-step channel program links against: wired channels, and wifi-80211p. */
export const LOCKSTEP_WIRED_MODULES = ['ns3-core', 'ns3-network', 'ns3-csma'];
export const LOCKSTEP_NS3_MODULES = [...LOCKSTEP_WIRED_MODULES, 'ns3-wifi', 'ns3-mobility', 'ns3-propagation'];
export const NS3_INSTALL_HINT =
  'install ns-3 and a compiler: sudo bash scripts/setup-ns3.sh (or apt-get install libns3-dev libgsl-dev g++ pkg-config)';

let installed: Promise<boolean> | undefined;

/** Whether ns-3's development files and a C++ compiler are here; asked once per process. */
export function ns3Installed(runner: CommandRunner = createCommandRunner()): Promise<boolean> {
  installed ??= (async () => {
    const modules = await runner
      .run(['pkg-config', '--exists', ...LOCKSTEP_NS3_MODULES, 'gsl'], { allowFailure: true })
      .catch(() => undefined);
    if (modules?.exitCode !== 0) return false;
    const compiler = await runner.run(['g++', '--version'], { allowFailure: true }).catch(() => undefined);
    return compiler?.exitCode === 0;
  })();
  return installed;
}

/**
 * The simulated runtime's channel engine: the scenario's, else ns-3 in lock-step when ns-3 is
 * installed, else the builtin model (for the kinds it models; the others need ns-3). A kind ns-3 has
 * no program for (lte-v2x) always takes the builtin engine.
 */
export async function chooseEngine(network: ResolvedNetwork, isInstalled: () => Promise<boolean> = ns3Installed): Promise<ChannelEngine> {
  const kind = channelKind(network.channel);
  if (!kind.ns3) {
    if (network.engine === 'ns3')
      throw new UserInputError(`network.engine: ns3 cannot run it; ${noNs3Program(network.channel)}: set engine: builtin`);
    return 'builtin';
  }
  // wifi-80211p's added delay and loss: only the builtin engine adds them (resolve-network.ts refuses engine: ns3 with them)
  if (addsDelayOrLoss(network)) return 'builtin';
  const wanted = network.engine ?? ((await isInstalled()) ? 'ns3' : kind.builtin ? 'builtin' : 'ns3');
  if (wanted === 'ns3' && !(await isInstalled())) {
    const why = network.engine === 'ns3' ? 'network.engine: ns3 needs ns-3' : `channel ${network.channel} runs only in ns-3`;
    throw new EnvironmentError(`${why}, which is not installed (pkg-config ${LOCKSTEP_NS3_MODULES.join(' ')} gsl, g++)`, NS3_INSTALL_HINT);
  }
  return wanted;
}
