import { type CommandRunner, createCommandRunner } from '../../host/exec/command-runner.js';
import { prepareFastProcessStart } from '../../host/exec/start-piped-process.js';
import { builtinChannelScript, compileChannelProgram, defaultCacheDir, NS3_PKG_MODULES } from './compile.js';
import { LOCKSTEP_NS3_MODULES, LOCKSTEP_WIRED_MODULES } from './engine-choice.js';

/**
 * The lock-step channel program (simulated runtime), compiled once per machine and source: a wired
 * build (csma, latency; fewer libraries, a faster start) and one with wifi-80211p.
 */
export function lockstepBinary(wifi: boolean, runner: CommandRunner = createCommandRunner()): Promise<string> {
  // Asked once per process: finding the cached binary runs pkg-config, which would cost each run of a sweep.
  const known = lockstepBinaries.get(wifi);
  if (known) return known;
  const options = wifi ? { runner, modules: LOCKSTEP_NS3_MODULES, defines: ['CAVSIM_WIFI'] } : { runner, modules: LOCKSTEP_WIRED_MODULES };
  // the program is started through posix_spawn from the first run on, once this has loaded it
  const fastStart = prepareFastProcessStart(runner, defaultCacheDir());
  const binary = compileChannelProgram(builtinChannelScript('lockstep-channel'), options).then(async (b) => {
    await fastStart;
    return b;
  });
  lockstepBinaries.set(wifi, binary);
  binary.catch(() => lockstepBinaries.delete(wifi));
  return binary;
}
const lockstepBinaries = new Map<boolean, Promise<string>>();

/** The real-time channel program (emulated runtime). */
export const realtimeBinary = (runner: CommandRunner = createCommandRunner()) =>
  compileChannelProgram(builtinChannelScript('channel-tap'), { runner, modules: NS3_PKG_MODULES });

/** Set-up compiles them all, so no run waits for g++ (about 15 s each). */
export async function compileBuiltinPrograms(): Promise<string[]> {
  const programs = [await realtimeBinary(), await lockstepBinary(false), await lockstepBinary(true)];
  const problem = await prepareFastProcessStart(createCommandRunner(), defaultCacheDir());
  return [...programs, problem ? `ns-3 starts with Node's spawn: ${problem}` : 'ns-3 starts with posix_spawn'];
}
