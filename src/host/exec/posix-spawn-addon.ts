import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../util/package-root.js';
import type { CommandRunner } from './command-runner.js';
import type { PipedProcess, ProcessExit, StartPipedProcess } from './piped-process.js';

interface Addon {
  spawn(
    path: string,
    argv: string[],
    onExit: (code: number | null, signal: number | null) => void,
  ): { pid: number; stdin: number; stdout: number; stderr: number; handle: unknown };
  hold(handle: unknown, yes: boolean): void;
}

/** nodelete: the end of a worker thread unloads its addons, while a thread may still wait for a child. */
const COMPILE_FLAGS = ['-O2', '-shared', '-fPIC', '-pthread', '-Wl,-z,nodelete'];
const SOURCE = join(packageRoot(), 'src/host/exec/posix-spawn.c');
/** Where Node keeps node_api.h: beside its binary (/usr/bin/node -> /usr/include/node). */
export const nodeHeaders = (execPath = process.execPath) => join(dirname(dirname(execPath)), 'include', 'node');

/**
 * Compiles src/host/exec/posix-spawn.c once per machine, source and Node version (cached beside the ns-3
 * programs) and loads it. Throws, with the compiler's message, when Node's headers or gcc are missing.
 */
export async function loadPosixSpawnAddon(runner: CommandRunner, cacheDir: string): Promise<StartPipedProcess> {
  const headers = nodeHeaders();
  if (!existsSync(join(headers, 'node_api.h'))) throw new Error(`Node's headers are not at ${headers} (node_api.h)`);
  const digest = createHash('sha256')
    .update(readFileSync(SOURCE))
    .update(COMPILE_FLAGS.join(' '))
    .update(process.versions.node)
    .digest('hex')
    .slice(0, 16);
  const dir = join(cacheDir, 'native');
  const file = join(dir, `posix-spawn-${digest}.node`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`; // worker threads share the pid
    await runner.run(['gcc', ...COMPILE_FLAGS, `-I${headers}`, '-o', tmp, SOURCE]);
    renameSync(tmp, file); // atomic: a concurrent compile of the same source is harmless
  }
  return startWithPosixSpawn(createRequire(import.meta.url)(file) as Addon);
}

const signalName = (n: number) => (Object.entries(constants.signals).find(([, v]) => v === n)?.[0] ?? null) as NodeJS.Signals | null;
const errnoName = (n: number) => Object.entries(constants.errno).find(([, v]) => v === n)?.[0];

function startWithPosixSpawn(addon: Addon): StartPipedProcess {
  return (binary, args) => {
    let ended = false;
    let resolveExit!: (exit: ProcessExit) => void;
    const exit = new Promise<ProcessExit>((resolve) => (resolveExit = resolve));
    let child: ReturnType<Addon['spawn']>;
    try {
      child = addon.spawn(binary, [binary, ...args], (code, signal) => {
        ended = true;
        resolveExit({ code, signal: signal === null ? null : signalName(signal) });
      });
    } catch (err) {
      const code = errnoName((err as { errno?: number }).errno ?? 0);
      throw Object.assign(new Error(`could not start the program ${binary}: ${code ?? (err as Error).message}`), { code });
    }
    const stdin = new Socket({ fd: child.stdin, readable: false, writable: true });
    const stdout = new Socket({ fd: child.stdout, readable: true, writable: false });
    const stderr = new Socket({ fd: child.stderr, readable: true, writable: false });
    const piped: PipedProcess = {
      pid: child.pid,
      stdin,
      stdout,
      stderr,
      exit,
      kill(signal = 'SIGTERM') {
        if (!ended) process.kill(child.pid, signal);
      },
      hold(yes) {
        for (const s of [stdin, stdout, stderr]) yes ? s.ref() : s.unref();
        if (!ended) addon.hold(child.handle, yes);
      },
    };
    return piped;
  };
}
