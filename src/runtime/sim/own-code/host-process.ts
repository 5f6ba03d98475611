import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { lastLines } from '../../../util/last-lines.js';

export interface CodeExit {
  code: number | null;
  signal: string | null;
  /** Set when the program could not be started at all. */
  error?: string;
}

/** A vehicle's own code running somewhere, seen from the simulated runtime. */
export interface OwnCodeRunner {
  /** The process whose CPU time is the vehicle's compute time, when it can be read. */
  readonly pid: number | undefined;
  /** Settles when the code has exited, for whatever reason. */
  readonly exited: Promise<CodeExit>;
  logTail(): Promise<string[]>;
  /** Waits up to `graceMs` for the code to exit by itself (after `stop`), then ends it. */
  stop(graceMs: number): Promise<CodeExit>;
}

/**
 * Runs a vehicle's `command:` as a process on this host, in its own process group (so ending it
 * ends whatever it started), its output appended to `logFile` as it goes.
 */
export function startHostProcess(argv: readonly string[], opts: { cwd: string; env: Record<string, string>; logFile: string }): OwnCodeRunner {
  const fd = openSync(opts.logFile, 'a');
  const child = spawn(argv[0], argv.slice(1), { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  const exited = new Promise<CodeExit>((resolve) => {
    child.once('error', (err) => resolve({ code: null, signal: null, error: err.message }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is already gone
    }
  };
  return {
    pid: child.pid,
    exited,
    logTail: async () => {
      try {
        return lastLines(readFileSync(opts.logFile, 'utf8'));
      } catch {
        return [];
      }
    },
    async stop(graceMs) {
      const timeout = (ms: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref());
      if ((await Promise.race([exited, timeout(graceMs)])) === undefined) {
        signalGroup('SIGTERM');
        if ((await Promise.race([exited, timeout(1000)])) === undefined) signalGroup('SIGKILL');
      }
      // Whatever the code started and left behind goes with it.
      signalGroup('SIGKILL');
      return exited;
    },
  };
}
