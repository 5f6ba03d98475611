import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import { ExternalProcessError } from '../../errors.js';
import type { CommandRunner } from './command-runner.js';
import type { StartPipedProcess } from './piped-process.js';

const tail = (text: string, lines = 12) => text.trim().split('\n').slice(-lines).join('\n');
const stripFinalNewline = (text: string) => text.replace(/\r?\n$/, '');

/**
 * A CommandRunner over `start` (posix_spawn once loaded: a fork of a large Node process costs
 * milliseconds per command on a VM, and host plumbing runs hundreds of commands for a fleet). Same
 * contract as the execa runner: argv only, stdout and stderr collected, a failure thrown unless allowed.
 */
export function createPipedCommandRunner(start: StartPipedProcess, log: (argv: readonly string[]) => void = () => {}): CommandRunner {
  const found = new Map<string, string>();
  return {
    async run(argv, opts = {}) {
      log(argv);
      const [file, ...args] = argv;
      const binary = found.get(file) ?? onPath(file);
      if (binary === undefined) return failed(argv, -1, `${file}: not found on PATH`, opts.allowFailure);
      found.set(file, binary);
      let child;
      try {
        child = start(binary, args);
      } catch (err) {
        return failed(argv, -1, (err as Error).message, opts.allowFailure);
      }
      child.stdin.on('error', () => {}); // a program that exits without reading its input
      child.stdin.end(opts.input ?? '');
      const [stdout, stderr, exit] = await Promise.all([collect(child.stdout), collect(child.stderr), child.exit]);
      const result = { stdout: stripFinalNewline(stdout), stderr: stripFinalNewline(stderr), exitCode: exit.code ?? -1 };
      if (result.exitCode !== 0 && !opts.allowFailure)
        throw new ExternalProcessError(argv, exit.code ?? undefined, tail(result.stderr || result.stdout));
      return result;
    },
  };
}

function failed(argv: readonly string[], exitCode: number, message: string, allowFailure = false) {
  if (!allowFailure) throw new ExternalProcessError(argv, undefined, message);
  return { stdout: '', stderr: message, exitCode };
}

function collect(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** What `file` names on PATH (as execvp finds it); undefined when no directory holds it. */
export function onPath(
  file: string,
  path = process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
): string | undefined {
  if (file.includes('/')) return file;
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, file);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
