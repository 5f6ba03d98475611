#!/usr/bin/env node
import { Command, Option } from 'commander';
import { CavsimError, EXIT_STATUS } from '../errors.js';
import { registerCommands } from './commands.js';

/** The only place that turns errors into exit statuses. */
async function main(argv: string[]): Promise<number> {
  const program = new Command('cavsim')
    .description('Connected autonomous vehicle experiments: F1Tenth physics, V2V over ns-3, vehicles in Docker')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  program.addOption(new Option('--verbose', 'show stack traces of internal errors'));
  registerCommands(program);
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (err) {
    return reportError(err, program.opts().verbose === true);
  }
}

function reportError(err: unknown, verbose: boolean): number {
  const commanderErr = err as { code?: string; exitCode?: number };
  if (typeof commanderErr.code === 'string' && commanderErr.code.startsWith('commander.')) {
    if (commanderErr.code === 'commander.helpDisplayed' || commanderErr.code === 'commander.version') return 0;
    return EXIT_STATUS.USER_INPUT;
  }
  if (err instanceof CavsimError) {
    process.stderr.write(`error: ${err.message}\n`);
    for (const d of err.details) process.stderr.write(`  ${d}\n`);
    if (err.hint) process.stderr.write(`hint: ${err.hint}\n`);
    return EXIT_STATUS[err.code];
  }
  process.stderr.write(`internal error (a bug in cavsim): ${err instanceof Error ? (verbose ? err.stack : err.message) : String(err)}\n`);
  return EXIT_STATUS.INTERNAL;
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
