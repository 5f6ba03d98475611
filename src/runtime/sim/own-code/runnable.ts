import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { UserInputError } from '../../../errors.js';
import type { ResolvedScenario } from '../../../scenario/resolved.js';

/** The folder a vehicle's host command runs in: the scenario file's, as the scenario's relative paths are. */
export const scenarioFolder = (scenario: Pick<ResolvedScenario, 'sourceFile'>) => dirname(resolve(scenario.sourceFile));

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `program` would be found, as a shell would look for it (or relative to `cwd` when it has a slash). */
export function findProgram(program: string, cwd: string, path = process.env.PATH ?? ''): string | undefined {
  if (program.includes('/')) {
    const file = isAbsolute(program) ? program : join(cwd, program);
    return isExecutableFile(file) ? file : undefined;
  }
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, program);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

/**
 * Refuses, before anything starts, a simulated run whose own code cannot start here: the program of
 * each vehicle's `command:` must be on PATH or, with a slash, relative to the scenario's folder.
 */
export function checkOwnCodeRunnable(scenario: ResolvedScenario): void {
  const cwd = scenarioFolder(scenario);
  const problems: string[] = [];
  for (const v of scenario.vehicles) {
    if (!v.command || v.image) continue;
    const program = v.command[0];
    if (!findProgram(program, cwd)) {
      problems.push(
        `vehicles.${v.name}.command: program "${program}" not found ${program.includes('/') ? `in ${cwd} (paths are relative to the scenario's folder)` : 'on PATH'}, or not executable`,
      );
    }
  }
  if (problems.length) {
    throw new UserInputError(
      problems[0],
      problems.slice(1),
      "install the program, or give its path; the simulated runtime runs `command:` on this host in the scenario's folder",
    );
  }
}
