import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { UserInputError } from '../errors.js';
import { createCommandRunner, type CommandRunner } from '../exec/command-runner.js';
import { startViewServer } from '../viz/view-server.js';

function parsePort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserInputError(`--port ${text} is not a port number (0-65535; 0 picks a free one)`);
  return port;
}

/** `cavsim view <run-folder>`: serve the replay (or, with --live, the growing run) on 127.0.0.1. */
export function registerViewCommand(program: Command, runner: CommandRunner = createCommandRunner()): void {
  program
    .command('view')
    .description('replay a run in the browser: map, cars, lidar, V2V messages, charts (served on 127.0.0.1 only)')
    .argument('<run-folder>', 'run folder (runs/<run-id>)')
    .option('--port <n>', 'port to listen on (default: a free one)', parsePort)
    .option('--no-open', 'do not open a browser, only print the URL')
    .option('--live', 'follow a run that is still being written, pushing new rows to the page')
    .action(async (dir: string, opts: { port?: number; open: boolean; live?: boolean }) => {
      if (!existsSync(dir)) throw new UserInputError(`no run folder ${dir}`, [], 'pass runs/<run-id>, as printed by cavsim up');
      if (!opts.live && !existsSync(join(dir, 'scenario.resolved.json'))) {
        throw new UserInputError(`${dir} is not a run folder: it has no scenario.resolved.json`, [], 'pass runs/<run-id>, or --live for a run that is starting');
      }
      const server = await startViewServer({ runDir: dir, live: opts.live === true, port: opts.port }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') throw new UserInputError(`port ${opts.port} is in use`, [], 'choose another --port, or leave it out to get a free one');
        throw err;
      });
      process.stdout.write(`cavsim view: ${server.url}  (${opts.live ? 'live' : 'replay'} of ${dir}; Ctrl-C to stop)\n`);
      if (opts.open) {
        // Fire and forget: some openers stay attached to the browser they start.
        void runner.run(['xdg-open', server.url], { allowFailure: true }).catch(() => {
          process.stderr.write(`could not open a browser; open ${server.url} yourself\n`);
        });
      }
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
