/**
 * Every command's `--json` output: one object on stdout, keys in snake_case (as in summary.json),
 * two-space indented, one trailing newline. Values are left as they are: only keys are renamed.
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(snakeCaseKeys(value), null, 2)}\n`);
}

export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCase(k), snakeCaseKeys(v)]));
}

/** `lastSafeText` -> `last_safe_text`; keys already in snake_case, and paths like `network.delay`, stay. */
export function snakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
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
