import type { CommandRunner } from './command-runner.js';
import { startWithNodeSpawn } from './node-piped-process.js';
import type { StartPipedProcess } from './piped-process.js';
import { loadPosixSpawnAddon } from './posix-spawn-addon.js';

let posixSpawn: StartPipedProcess | undefined;
let loading: Promise<string | undefined> | undefined;

/** `CAVSIM_PROCESS_START=node` keeps Node's own spawn (to compare, or should the addon misbehave). */
const nodeSpawnWanted = () => process.env.CAVSIM_PROCESS_START === 'node';

/**
 * Starts a piped program with posix_spawn once `prepareFastProcessStart` has loaded it, otherwise
 * (before, where it cannot be built, or when asked) with Node's spawn. Both behave the same.
 */
export const startPipedProcess: StartPipedProcess = (binary, args) =>
  (posixSpawn && !nodeSpawnWanted() ? posixSpawn : startWithNodeSpawn)(binary, args);

/**
 * Builds (once per machine) and loads the posix_spawn addon; resolves to why it cannot be used, or
 * undefined when it is in use. Never rejects: Node's spawn is the fallback.
 */
export function prepareFastProcessStart(runner: CommandRunner, cacheDir: string): Promise<string | undefined> {
  loading ??= loadPosixSpawnAddon(runner, cacheDir).then(
    (start) => void (posixSpawn = start),
    (err: Error) => err.message.split('\n')[0],
  );
  return loading;
}
