import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { lastLines } from '../../../util/last-lines.js';
import { openForWriting } from '../../../util/write-no-follow.js';

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

/** What a vehicle's code may write to its log: enough for any debugging, not enough to fill a disk. */
export const OWN_CODE_LOG_CAP_BYTES = 64 * 1024 ** 2;
/** How much of the log's end is read for a failure's last lines. */
const TAIL_BYTES = 16 * 1024;

/**
 * Runs a vehicle's `command:` as a process on this host, in its own process group (so ending it
 * ends whatever it started), its output appended to `logFile` as it goes, up to `logCapBytes`
 * (then one line says the log was cut, and the rest is read and dropped).
 */
export function startHostProcess(
  argv: readonly string[],
  opts: { cwd: string; env: Record<string, string>; logFile: string; logCapBytes?: number },
): OwnCodeRunner {
  const cap = opts.logCapBytes ?? OWN_CODE_LOG_CAP_BYTES;
  const child = spawn(argv[0], argv.slice(1), {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const log = openForWriting(opts.logFile, 'append');
  let written = fstatSync(log).size;
  let cut = false;
  const append = (chunk: Buffer) => {
    if (cut) return;
    const room = cap - written;
    if (chunk.length <= room) {
      writeSync(log, chunk);
      written += chunk.length;
      return;
    }
    if (room > 0) writeSync(log, chunk.subarray(0, room));
    writeSync(
      log,
      `\n[cavsim: this log was cut at ${cap >= 1024 ** 2 ? `${Math.round(cap / 1024 ** 2)} MiB` : `${Math.round(cap / 1024)} KiB`}; the code went on writing]\n`,
    );
    cut = true;
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  let open = 2;
  const closeLog = () => --open === 0 && closeSync(log);
  child.stdout.once('close', closeLog);
  child.stderr.once('close', closeLog);
  // Its output is read through pipes: an exit counts once what it wrote is in the log (or after
  // 200 ms, when something it started still holds the pipes).
  const outputRead = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<CodeExit>((resolve) => {
    child.once('error', (err) => resolve({ code: null, signal: null, error: err.message }));
    child.once('exit', (code, signal) => {
      void Promise.race([outputRead, new Promise((r) => setTimeout(r, 200).unref())]).then(() => resolve({ code, signal }));
    });
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
    logTail: async () => lastLines(readTail(opts.logFile, TAIL_BYTES)),
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

/** The last `bytes` of a file as text (empty when it cannot be read). */
function readTail(file: string, bytes: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
