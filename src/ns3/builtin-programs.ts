import { createCommandRunner, type CommandRunner } from '../exec/command-runner.js';
import { builtinChannelScript, compileChannelProgram, NS3_PKG_MODULES } from './compile.js';
import { LOCKSTEP_NS3_MODULES } from './engine-choice.js';

/** The lock-step channel program (simulated runtime), compiled once per machine and source. */
export const lockstepBinary = (runner: CommandRunner = createCommandRunner()) =>
  compileChannelProgram(builtinChannelScript('lockstep-channel'), { runner, modules: LOCKSTEP_NS3_MODULES });

/** The real-time channel program (emulated runtime). */
export const realtimeBinary = (runner: CommandRunner = createCommandRunner()) =>
  compileChannelProgram(builtinChannelScript('channel-tap'), { runner, modules: NS3_PKG_MODULES });

/** Set-up compiles both, so no run waits for g++ (about 15 s each). */
export async function compileBuiltinPrograms(): Promise<string[]> {
  return [await realtimeBinary(), await lockstepBinary()];
}
