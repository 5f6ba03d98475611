import { accessSync, constants, lstatSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { UserInputError } from '../errors.js';

/** A folder cavsim writes into, set by a flag, else an environment variable, else a folder under the current one. */
export interface FolderSetting {
  flag: string;
  env: string;
  fallback: string;
}

/** An absolute folder path and what set it, as a user would recognise it in a message. */
export interface ChosenFolder {
  path: string;
  origin: string;
}

/** The flag's value, else the environment variable's (an empty one counts as unset), else ./fallback. */
export function chooseFolder(setting: FolderSetting, flagValue: string | undefined, env: NodeJS.ProcessEnv = process.env): ChosenFolder {
  if (flagValue !== undefined) {
    if (!flagValue.trim())
      throw new UserInputError(`${setting.flag} is empty`, [], `give a folder, e.g. ${setting.flag} ./${setting.fallback}`);
    return { path: resolve(flagValue), origin: `${setting.flag} ${flagValue}` };
  }
  const fromEnv = env[setting.env];
  if (fromEnv?.trim()) return { path: resolve(fromEnv), origin: `${setting.env}=${fromEnv}` };
  return { path: resolve(setting.fallback), origin: `the default folder ./${setting.fallback}` };
}

/** Kernel file systems: nothing can be made there, and Node's recursive mkdir never returns under /proc. */
const KERNEL_FILE_SYSTEMS = ['/proc', '/sys'];

/**
 * Refuses a folder that cannot be created or written, before anything is created: the nearest part
 * of the path that exists must be a folder this user may write, outside /proc and /sys. The message
 * names what set the folder (flag or environment variable). Returns the absolute path.
 */
export function checkWritableFolder(chosen: ChosenFolder): string {
  const { path, origin } = chosen;
  const refuse = (why: string) => new UserInputError(`${origin}: ${why}`, [], 'choose a folder you can write');
  const nearest = nearestExisting(path);
  if ('error' in nearest) throw refuse(`${nearest.at} cannot be reached (${nearest.error})`);
  const { at, stats } = nearest;
  const real = realpathSync(at);
  const kernel = KERNEL_FILE_SYSTEMS.find((k) => real === k || real.startsWith(k + sep));
  if (kernel) throw refuse(`${path} is under ${kernel}, a kernel file system where no folder can be made`);
  if (!stats.isDirectory())
    throw refuse(at === path ? `${path} is a file, not a folder` : `${at} is a file, not a folder, so ${path} cannot be made`);
  try {
    accessSync(real, constants.W_OK);
  } catch (err) {
    throw refuse(`${at} cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return path;
}

/** The path itself or its nearest ancestor that exists; a file in the middle of the path counts as existing. */
function nearestExisting(path: string): { at: string; stats: Stats } | { at: string; error: string } {
  for (let at = path; ; at = dirname(at)) {
    try {
      return { at, stats: statSync(at) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return { at, error: 'a link to nothing' };
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(at) === at) return { at, error: code ?? String(err) };
    }
  }
}
