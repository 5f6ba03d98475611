import { ExternalProcessError } from '../../errors.js';

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The one port through which cavsim runs external programs: always an argv array, never a shell. */
export interface CommandRunner {
  run(argv: readonly string[], opts?: { allowFailure?: boolean; input?: string }): Promise<CommandResult>;
}

const tail = (text: string, lines = 12) => text.trim().split('\n').slice(-lines).join('\n');

export function createCommandRunner(log: (argv: readonly string[]) => void = () => {}): CommandRunner {
  return {
    async run(argv, opts = {}) {
      log(argv);
      const [file, ...args] = argv;
      // Loaded on the first command, not at start: most cavsim commands run none.
      const { execa } = await import('execa');
      const result = await execa(file, args, { reject: false, input: opts.input, stripFinalNewline: true });
      const exitCode = result.exitCode ?? -1;
      if (exitCode !== 0 && !opts.allowFailure) {
        throw new ExternalProcessError(argv, result.exitCode, tail(String(result.stderr || result.stdout)));
      }
      return { stdout: String(result.stdout), stderr: String(result.stderr), exitCode };
    },
  };
}
