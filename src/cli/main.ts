#!/usr/bin/env node
import { CavsimError, EXIT_STATUS, exitStatusOf } from '../errors.js';
import { RUN_EXIT_STATUS } from '../run/outcome.js';
import { RUN_FILES } from '../run/run-files.js';
import { requireCjs } from '../util/require-cjs.js';
import { errorJson, printJson, wantsJson } from './json-output.js';

export const EXIT_STATUS_HELP = `
Exit status:
  ${RUN_EXIT_STATUS.completed}    the run (or every run of a sweep) completed and is valid
  ${EXIT_STATUS.USER_INPUT}    bad input: a scenario field, a flag or a map; nothing was touched
  ${EXIT_STATUS.ENVIRONMENT}    the environment lacks something (Docker engine, ns-3, root); the message says how to fix it
  ${EXIT_STATUS.EXTERNAL_PROCESS}    a command cavsim ran failed (e.g. teardown could not undo a resource)
  ${RUN_EXIT_STATUS.failed}    the run failed: a component died or could not start (${RUN_FILES.summary} names it)
  ${RUN_EXIT_STATUS.invalid}    the run finished but is invalid: its timing cannot be trusted (${RUN_FILES.summary} says why)
  ${EXIT_STATUS.LEFTOVERS}    the run ended but could not undo everything it created; the message names the \`cavsim teardown --run\` command
  ${RUN_EXIT_STATUS.interrupted}  interrupted (Ctrl-C, SIGTERM or SIGHUP); what was measured is kept, what was created undone
  ${EXIT_STATUS.INTERNAL}   a bug in cavsim
`;

/** The only place that turns errors into exit statuses. */
const VERSION = '0.1.0';

async function main(argv: string[]): Promise<number> {
  // `cavsim --version` answers before the commands (and the libraries behind them) load.
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  (await import('../util/code-cache.js')).enableCodeCache();
  const { registerCommands } = await import('./commands.js');
  const { Command, Option } = requireCjs('commander') as typeof import('commander');
  const program = new Command('cavsim')
    .description('Connected autonomous vehicle experiments: F1Tenth physics, V2V over ns-3, vehicles in Docker')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  program.addOption(new Option('--verbose', 'show stack traces of internal errors'));
  program.addHelpText('after', EXIT_STATUS_HELP);
  await registerCommands(program, argv);
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (err) {
    return reportError(err, program.opts().verbose === true, wantsJson(argv));
  }
}

/** Errors go to stderr as text; with `--json`, also to stdout as `{"error": {...}}`. */
function reportError(err: unknown, verbose: boolean, json: boolean): number {
  const asJson = (kind: string, status: number, message: string, details?: string[], hint?: string) => {
    if (json) printJson(errorJson(kind, status, message, details, hint));
    return status;
  };
  const commanderErr = err as { code?: string; exitCode?: number; message?: string };
  if (typeof commanderErr.code === 'string' && commanderErr.code.startsWith('commander.')) {
    if (commanderErr.code === 'commander.helpDisplayed' || commanderErr.code === 'commander.version') return 0;
    return asJson('usage', EXIT_STATUS.USER_INPUT, (commanderErr.message ?? '').replace(/^error: /, ''));
  }
  if (err instanceof CavsimError) {
    process.stderr.write(`error: ${err.message}\n`);
    for (const d of err.details) process.stderr.write(`  ${d}\n`);
    if (err.hint) process.stderr.write(`hint: ${err.hint}\n`);
    return asJson(err.code.toLowerCase(), exitStatusOf(err), err.message, err.details, err.hint);
  }
  process.stderr.write(`internal error (a bug in cavsim): ${err instanceof Error ? (verbose ? err.stack : err.message) : String(err)}\n`);
  return asJson('internal', EXIT_STATUS.INTERNAL, err instanceof Error ? err.message : String(err));
}

// A reader that goes away (`cavsim status | head -2`) is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

/** Resolves once everything written so far has left the process (a pipe takes 64 KiB at a time). */
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));

main(process.argv).then(async (code) => {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // Exit now: a kept run's engine waits, a finished viewer or stray timers must not hold the CLI open.
  process.exit(code);
});
