import { snakeCaseKeys } from '../util/snake-case.js';

export { snakeCase, snakeCaseKeys } from '../util/snake-case.js';

/**
 * Every command's `--json` output: one object on stdout, keys in snake_case (as in summary.json),
 * two-space indented, one trailing newline. Values are left as they are: only keys are renamed.
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(snakeCaseKeys(value), null, 2)}\n`);
}

/** An error as `--json` prints it, on stdout, so a script reads one JSON document whatever happened. */
export function errorJson(kind: string, exitStatus: number, message: string, details: string[] = [], hint?: string) {
  return { error: { kind, message, details, ...(hint ? { hint } : {}), exit_status: exitStatus } };
}

/** Whether the command line asks for JSON (`--json` before any `--`). */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}
