import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { EnvironmentError, ExternalProcessError } from '../errors.js';
import type { Journal } from '../journal/journal.js';
import { PROCESS_KIND, readStartTime, stopProcess, type ProcessIdentity } from './process-identity.js';

export const READY_LINE = 'CAVSIM-READY';
const LAG_LINE = /^CAVSIM-LAG sim_s=(\S+) lag_ms=(\S+)/;

export interface StartedChannel {
  readonly identity: ProcessIdentity;
  readonly logPath: string;
  /** Realtime lag samples the program reported (wall clock minus simulated clock). */
  lagSamplesMs(): number[];
  /** SIGTERM, then SIGKILL after the grace period. Harmless to call twice. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a channel program, journals its (pid, start time) and waits for the ready line. Its stdout
 * and stderr go to `logPath`. On timeout or early exit the process is stopped and an error thrown.
 */
export async function startChannel(p: {
  binary: string;
  args: string[];
  logPath: string;
  journal: Journal;
  readyTimeoutMs?: number;
}): Promise<StartedChannel> {
  mkdirSync(dirname(p.logPath), { recursive: true });
  const log = createWriteStream(p.logPath, { flags: 'a' });
  const child = spawn(p.binary, p.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) {
    const err = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new EnvironmentError(`cannot start channel program ${p.binary}: ${err.message}`, 'compile it first, see docs/ns3-argv-contract.md');
  }
  // The pid exists only after spawn; journal it before anything that could fail or take long.
  const identity: ProcessIdentity = { pid, startTime: readStartTime(pid) ?? 'unknown' };
  p.journal.record(PROCESS_KIND, `${pid}`, { ...identity });

  const lag: number[] = [];
  const tail: string[] = [];
  let exited = false;
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exited = true;
      resolve(code);
    }),
  );
  const ready = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      log.write(line + '\n');
      if (line.trim() === READY_LINE) resolve();
      const m = LAG_LINE.exec(line);
      if (m) lag.push(Number(m[2]));
    });
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    log.write(line + '\n');
    tail.push(line);
    if (tail.length > 12) tail.shift();
  });

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      if (!exited) await stopProcess(identity);
      await new Promise<void>((r) => log.end(r));
    })());

  const timeoutMs = p.readyTimeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    ready.then(() => 'ready' as const),
    exit.then(() => 'exited' as const),
    new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (outcome !== 'ready') {
    await stop();
    if (outcome === 'exited') throw new ExternalProcessError([p.binary, ...p.args], child.exitCode ?? undefined, tail.join('\n'));
    throw new EnvironmentError(`channel program printed no ${READY_LINE} within ${timeoutMs} ms`, `see ${p.logPath}`);
  }
  return {
    identity,
    logPath: p.logPath,
    lagSamplesMs: () => [...lag],
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}
