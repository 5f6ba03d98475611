import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { UserInputError } from '../errors.js';
import { checkRunFolder, readRunScenario } from '../run/read-run-folder.js';
import { RUN_FILES } from '../run/run-files.js';
import { SweepFolder } from '../sweep/sweep-folder.js';
import { openInBrowser } from '../ui/viewer/open-in-browser.js';
import { wholeNumber } from './flag-values.js';

/** `cavsim view <run-folder>`: serve the replay (or, with --live, the growing run) on 127.0.0.1. */
export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description(
      "replay a run in the browser: map, cars, lidar, V2V messages, charts; or list a sweep's runs and open any (served on 127.0.0.1 only)",
    )
    .argument('<folder>', 'run folder (runs/<run-id>) or sweep folder (sweeps/<sweep-id>)')
    .option('--port <n>', 'port to listen on, 0-65535 (default: a free one)', wholeNumber('--port', { min: 0, max: 65535 }))
    .option('--no-open', 'do not open a browser, only print the URL')
    .option('--live', 'follow a run that is still being written, pushing new rows to the page')
    .option('--json', 'print {url, run_dir, mode} (a sweep: {url, sweep_dir, mode, runs}) as one JSON line once the page is served')
    .action(async (dir: string, opts: { port?: number; open: boolean; live?: boolean; json?: boolean }) => {
      checkRunFolder(dir, 'run or sweep folder', 'pass runs/<run-id> or sweeps/<sweep-id>');
      const sweep = SweepFolder.isSweepDir(dir);
      if (sweep && opts.live)
        throw new UserInputError(
          '--live follows one run, and this is a sweep folder',
          [],
          `drop --live to list the sweep's runs, or pass one of them: ${join(dir, 'runs', '<point id>')}`,
        );
      const runs = sweep ? (await import('../ui/viewer/sweep-listing.js')).readSweepListing(dir).runs.length : 0;
      // A replay needs the scenario now; a live run that is starting writes it (whole) in a moment.
      const scenarioFile = join(dir, RUN_FILES.scenario);
      if (!sweep && (!opts.live || existsSync(scenarioFile))) {
        readRunScenario(
          dir,
          new UserInputError(
            `${dir} is neither a run folder (no ${RUN_FILES.scenario}) nor a sweep folder (no grid.json)`,
            [],
            'pass runs/<run-id> or sweeps/<sweep-id>, or --live for a run that is starting',
          ),
        );
      }
      const { startViewServer } = await import('../ui/viewer/view-server.js');
      const server = await startViewServer({
        ...(sweep ? { sweepDir: dir } : { runDir: dir }),
        live: opts.live === true,
        port: opts.port,
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE')
          throw new UserInputError(`port ${opts.port} is in use`, [], 'choose another --port, or leave it out to get a free one');
        throw err;
      });
      const mode = sweep ? 'sweep' : opts.live ? 'live' : 'replay';
      // One line, so a script can read it while the server keeps running.
      if (opts.json)
        process.stdout.write(
          `${JSON.stringify(
            sweep ? { url: server.url, sweep_dir: resolve(dir), mode, runs } : { url: server.url, run_dir: resolve(dir), mode },
          )}\n`,
        );
      else
        process.stdout.write(
          `cavsim view: ${server.url}  (${sweep ? `the ${runs} runs of sweep` : `${mode} of`} ${dir}; Ctrl-C to stop)\n`,
        );
      if (opts.open) {
        openInBrowser(server.url, () => process.stderr.write(`could not open a browser; open ${server.url} yourself\n`));
      }
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
