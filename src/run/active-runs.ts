import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * An index of runs that may still hold host resources, kept outside any project folder so
 * `cavsim teardown --all` finds every journal whatever directory it is called from, even after
 * the run's process was killed with SIGKILL.
 */
export const stateDir = (env = process.env) =>
  env.CAVSIM_STATE_DIR ?? join(env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'cavsim', 'active');

export interface ActiveRun {
  runId: string;
  journal: string;
}

export function registerActiveRun(runId: string, journal: string, dir = stateDir()): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${runId}.json`), JSON.stringify({ runId, journal }) + '\n');
}

export function unregisterActiveRun(runId: string, dir = stateDir()): void {
  rmSync(join(dir, `${runId}.json`), { force: true });
}

export function listActiveRuns(dir = stateDir()): ActiveRun[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      try {
        return [JSON.parse(readFileSync(join(dir, f), 'utf8')) as ActiveRun];
      } catch {
        return [];
      }
    });
}
