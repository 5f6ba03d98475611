import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EnvironmentError, ExternalProcessError } from '../../errors.js';
import { type ProcessIdentity, readStartTime, stopProcess } from '../../host/exec/process-identity.js';
import type { Journal } from '../../host/journal/journal.js';
import { NS3_PROCESS_KIND } from '../../host/journal/kinds.js';
import { lastLines } from '../../util/last-lines.js';
import { loadScaledTimeout } from '../../util/load-scaled-timeout.js';
import { openForWriting } from '../../util/write-no-follow.js';

export const READY_LINE = 'CAVSIM-READY';
const LAG_LINE = /^CAVSIM-LAG sim_s=(\S+) lag_ms=(\S+)/gm;
const POSITIONS_LINE = /^CAVSIM-POSITIONS port=(\d+)$/m;
const DELAY_LINE = /^CAVSIM-DELAY ns=(\d+) jitter_ns=(\d+)$/gm;
const READY_POLL_MS = 10;

export interface ChannelExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartedChannel {
  readonly identity: ProcessIdentity;
  readonly logPath: string;
  /** Resolves when the program exits, for whatever reason, while this process is alive. */
  readonly exited: Promise<ChannelExit>;
  /** Realtime lag samples the program reported (wall clock minus simulated clock). */
  lagSamplesMs(): number[];
  /** The 127.0.0.1 UDP port a radio channel takes the cars' positions on, when it said one. */
  positionsPort(): number | undefined;
  /**
   * csma, latency (the built-in program): the delay and jitter [s] for frames sent from now on;
   * resolves once the program says it applied them. Once per run: stdin is closed after it.
   */
  setDelay(delayS: number, jitterS: number, timeoutMs?: number): Promise<void>;
  /** The last lines the program wrote (stdout and stderr). */
  lastLogLines(n?: number): string[];
  /** SIGTERM, then SIGKILL after the grace period. Harmless to call twice. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface ChannelStart {
  binary: string;
  args: string[];
  logPath: string;
  journal: Pick<Journal, 'record'>;
  /** How long a quiet machine may take to print READY (default 20 s); scaled by the machine's load (load-scaled-timeout.ts). */
  readyTimeoutMs?: number;
}

/**
 * Starts a channel program in a process group of its own, with stdout and stderr written straight
 * to `logPath`: it outlives this process when a run is kept (`up --keep`), and a Ctrl-C meant for
 * the CLI does not reach it. Its (pid, start time) is journaled before anything else, then this
 * waits for the ready line. On timeout or early exit the process is stopped and an error thrown.
 */
export async function startChannel(p: ChannelStart): Promise<StartedChannel> {
  mkdirSync(dirname(p.logPath), { recursive: true });
  const logFd = openForWriting(p.logPath, 'append');
  const child = spawn(p.binary, p.args, { stdio: ['pipe', logFd, logFd], detached: true });
  // Never keeps this process alive (a kept run outlives it); closing it only ends the program's reader.
  child.stdin?.on('error', () => {});
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  closeSync(logFd);
  const pid = child.pid;
  if (pid === undefined) {
    const err = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new EnvironmentError(
      `cannot start channel program ${p.binary}: ${err.message}`,
      'compile it first, see docs/ns3-argv-contract.md',
    );
  }
  child.unref();
  // The pid exists only after spawn; journal it before anything that could fail or take long.
  const identity: ProcessIdentity = { pid, startTime: readStartTime(pid) ?? 'unknown' };
  p.journal.record(NS3_PROCESS_KIND, `${pid}`, { ...identity });

  let hasExited = false;
  const exited = new Promise<ChannelExit>((resolve) =>
    child.once('exit', (code, signal) => {
      hasExited = true;
      resolve({ code, signal });
    }),
  );
  const logText = () => (existsSync(p.logPath) ? readFileSync(p.logPath, 'utf8') : '');
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= hasExited ? Promise.resolve() : stopProcess(identity));

  const timeout = loadScaledTimeout(p.readyTimeoutMs ?? 20_000);
  const outcome = await waitForReady(logText, exited, timeout.ms);
  if (outcome !== 'ready') {
    child.stdin?.destroy();
    await stop();
    if (outcome === 'exited')
      throw new ExternalProcessError([p.binary, ...p.args], child.exitCode ?? undefined, lastLines(logText(), 12).join('\n'));
    throw new EnvironmentError(`channel program printed no ${READY_LINE} within ${timeout.describe}`, `see ${p.logPath}`);
  }
  return {
    identity,
    logPath: p.logPath,
    exited,
    lagSamplesMs: () => [...logText().matchAll(LAG_LINE)].map((m) => Number(m[2])),
    lastLogLines: (n = 5) => lastLines(logText(), n),
    positionsPort: () => {
      const m = POSITIONS_LINE.exec(logText());
      return m ? Number(m[1]) : undefined;
    },
    setDelay: async (delayS, jitterS, timeoutMs = 5000) => {
      const ns = (s: number) => Math.round(s * 1e9);
      const applied = () => [...logText().matchAll(DELAY_LINE)].some((m) => Number(m[1]) === ns(delayS) && Number(m[2]) === ns(jitterS));
      child.stdin?.end(`delay ${ns(delayS)} ${ns(jitterS)}\n`);
      const deadline = Date.now() + timeoutMs;
      while (!applied()) {
        if (hasExited) throw new EnvironmentError('the channel program exited before it applied the calibrated delay', `see ${p.logPath}`);
        if (Date.now() > deadline)
          throw new EnvironmentError(`the channel program did not apply the calibrated delay within ${timeoutMs} ms`, `see ${p.logPath}`);
        await new Promise((r) => setTimeout(r, READY_POLL_MS));
      }
    },
    stop: () => {
      child.stdin?.destroy();
      return stop();
    },
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

async function waitForReady(
  logText: () => string,
  exited: Promise<ChannelExit>,
  timeoutMs: number,
): Promise<'ready' | 'exited' | 'timeout'> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      logText()
        .split('\n')
        .some((l) => l.trim() === READY_LINE)
    )
      return 'ready';
    if (gone) return 'exited';
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
  return 'timeout';
}
