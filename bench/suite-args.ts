/**
 * `npm run bench -- [--list] [suite ...]`: which suites to run, decided from the arguments alone.
 * No arguments: every suite. A name that is no suite is an error, not a silent no-op.
 */
export type SuiteArgs = { kind: 'list' } | { kind: 'run'; names: string[] } | { kind: 'error'; messages: string[] };

export function resolveSuiteArgs(args: readonly string[], available: readonly string[]): SuiteArgs {
  const known = `suites: ${available.join(', ')}`;
  const messages: string[] = [];
  const names: string[] = [];
  let list = false;
  for (const arg of args) {
    if (arg === '--list') list = true;
    else if (arg.startsWith('-')) messages.push(`unknown option "${arg}"; options: --list`);
    else if (!available.includes(arg)) messages.push(`unknown suite "${arg}"; ${known}`);
    else if (!names.includes(arg)) names.push(arg);
  }
  if (messages.length) return { kind: 'error', messages };
  if (list) return { kind: 'list' };
  return { kind: 'run', names: names.length ? names : [...available] };
}
