import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where cavsim keeps what it can rebuild (ns-3 programs, the code cache): $CAVSIM_CACHE_DIR, else ~/.cache/cavsim. */
export function defaultCacheDir(env = process.env): string {
  return env.CAVSIM_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'cavsim');
}
