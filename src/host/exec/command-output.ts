import { execFile } from 'node:child_process';

/**
 * What a short command printed (trimmed), or null when it could not start or did not exit 0. Node's
 * own execFile, not the execa runner (command-runner.ts): execa is some 130 modules, loaded for the
 * two questions a run's manifest asks (git, pkg-config) before the run's first step. Argv only, no shell.
 */
export function commandOutput(argv: readonly string[]): Promise<string | null> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    try {
      execFile(file, args, { encoding: 'utf8', maxBuffer: Infinity }, (err, stdout) => resolve(err ? null : stdout.trim()));
    } catch {
      resolve(null);
    }
  });
}
