import type { Readable, Writable } from 'node:stream';

/** How a process ended: an exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A program started with its stdin, stdout and stderr piped to this process. */
export interface PipedProcess {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once, when the process has ended. */
  readonly exit: Promise<ProcessExit>;
  /** Signals the process unless it has already ended (its pid may belong to another process by then). */
  kill(signal?: NodeJS.Signals): void;
  /** Whether the process and its pipes keep Node's event loop alive (they do at start). */
  hold(yes: boolean): void;
}

/** Starts `binary` with `args`; throws when it cannot be started (a missing file, no permission). */
export type StartPipedProcess = (binary: string, args: readonly string[]) => PipedProcess;
