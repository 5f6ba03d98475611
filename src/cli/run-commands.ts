import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { EXIT_STATUS, UserInputError } from '../errors.js';
import { chosenStateDir } from '../run/active-runs.js';
import type { RunEvent } from '../run/events.js';
import { FOXGLOVE_DEFAULT_PORT } from '../run/mcap/foxglove-port.js';
import { RUN_EXIT_STATUS } from '../run/outcome.js';
import { readRunSummary } from '../run/read-run-folder.js';
import { checkRunId, newRunId, RUNS_DIR } from '../run/run-folder.js';
import type { KeptRun } from '../runtime/emulated/run-emulated.js';
import { SweepFolder } from '../sweep/sweep-folder.js';
import { createLineReporter } from '../ui/terminal/run/line-reporter.js';
import { formatSummary } from '../ui/terminal/run/summary-text.js';
import { EventBus } from '../util/event-bus.js';
import { checkWritableFolder, chooseFolder } from '../util/writable-folder.js';
import { printWarningsFromEvents } from './print-warnings.js';
import { installStopSignals } from './stop-signals.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** up (run a scenario) and summary (read a finished run). */
export function registerRunCommands(program: Command): void {
  program
    .command('up')
    .description('run a scenario: emulated in Docker with ns-3 (default) or simulated in one process')
    .argument('<scenario>', 'scenario YAML file')
    .addOption(new Option('--runtime <runtime>', 'where to run').choices(['docker', 'sim']).default('docker'))
    .option('--set <path=value>', 'override a field, e.g. network.delay=100ms (repeatable)', collect, [])
    .option('--json', 'print only the summary, as JSON')
    .option('--runs-dir <dir>', 'where run folders are written (default ./runs or $CAVSIM_RUNS_DIR)')
    .option('--run-id <id>', 'name of the run (and its folder); default: date, time and 4 random hex digits')
    .option(
      '--keep',
      'emulated runs: after the scenario, leave containers, links, rules and ns-3 up and exit; end with `cavsim teardown --run ID`',
    )
    .option(
      '--hosts <file>',
      'place the cars on the hosts of this file, each reached by its Docker engine (default $CAVSIM_HOSTS; docs/multi-host.md)',
    )
    .option('--viz', 'watch the run live in the browser (a page on 127.0.0.1); Ctrl-C closes it after the run')
    .option(
      '--foxglove [port]',
      `serve the run live to Foxglove (WebSocket on 127.0.0.1, port ${FOXGLOVE_DEFAULT_PORT} unless given); the simulated runtime then keeps to real time; Ctrl-C closes it after the run`,
    )
    .action(
      async (
        file: string,
        opts: {
          runtime: string;
          set: string[];
          json?: boolean;
          runsDir?: string;
          runId?: string;
          keep?: boolean;
          hosts?: string;
          viz?: boolean;
          foxglove?: boolean | string;
        },
      ) => {
        const foxglovePort = opts.foxglove === undefined ? undefined : foxglovePortOf(opts.foxglove);
        const events = new EventBus<RunEvent>();
        if (opts.runId !== undefined) checkRunId('--run-id', opts.runId);
        if (opts.hosts !== undefined && opts.runtime === 'sim')
          throw new UserInputError(
            '--hosts applies to emulated runs only',
            ['--runtime sim runs every car in this process'],
            'drop --hosts, or use --runtime docker',
          );
        if (opts.keep && opts.runtime === 'sim')
          throw new UserInputError(
            '--keep applies to emulated runs only',
            ['--runtime sim has no containers, links or ns-3 to keep'],
            'drop --keep, or use --runtime docker',
          );
        const runsDir = checkWritableFolder(chooseFolder(RUNS_DIR, opts.runsDir));
        // An emulated run records itself in the active-run index before it creates anything.
        if (opts.runtime === 'docker') checkWritableFolder(chosenStateDir());
        if (opts.runId !== undefined && existsSync(join(runsDir, opts.runId))) {
          throw new UserInputError(
            `--run-id ${opts.runId}: ${join(runsDir, opts.runId)} already holds a run`,
            [],
            'choose another --run-id, or leave it out for a fresh one',
          );
        }
        const runId = opts.runId ?? newRunId();
        const viewer = opts.viz ? await startLiveView(join(runsDir, runId)) : undefined;
        const foxglove = foxglovePort === undefined ? undefined : await startFoxglove(join(runsDir, runId), foxglovePort);
        const reporter = await attachReporter(events, opts.json === true);
        const stop = installStopSignals((line) => process.stderr.write(line));
        try {
          if (opts.json) printWarningsFromEvents(events);
          const common = {
            overrides: opts.set,
            runsDir,
            runId,
            events,
            shouldStop: stop.requested,
            stopReason: stop.reason,
            command: process.argv.slice(2),
            realTime: foxglove !== undefined,
          };
          const outcome =
            opts.runtime === 'sim'
              ? await (await import('../api/run-simulated.js')).runScenarioSimulated(file, common)
              : await (await import('../api/run-emulated.js')).runScenarioEmulated(file, {
                  ...common,
                  keep: opts.keep,
                  hostsFile: opts.hosts,
                });
          await reporter.done();
          const kept = (outcome as { kept?: KeptRun }).kept;
          if (opts.json)
            process.stdout.write(
              `${JSON.stringify({ ...outcome.summary, run_dir: outcome.runDir, ...(kept ? { kept } : {}) }, null, 2)}\n`,
            );
          else if (kept) process.stdout.write(describeKept(kept));
          if (outcome.summary.hint && !opts.json) process.stderr.write(`hint: ${outcome.summary.hint}\n`);
          process.exitCode = outcome.summary.exit_status ?? RUN_EXIT_STATUS[outcome.summary.status];
          const leftovers = (outcome as { leftovers?: string }).leftovers;
          if (leftovers) {
            process.stderr.write(`error: ${leftovers}\n`);
            process.exitCode = EXIT_STATUS.LEFTOVERS;
          }
          await foxglove?.flush();
          if (viewer || foxglove) {
            stop.uninstall(); // the run and its teardown are over: Ctrl-C now only closes the viewers
            process.stderr.write(
              `the run is over; ${[viewer && `its replay stays at ${viewer.url}`, foxglove && `Foxglove stays connected at ${foxglove.url}`].filter(Boolean).join(', and ')} until Ctrl-C\n`,
            );
            await new Promise((resolve) => process.once('SIGINT', resolve));
          }
        } finally {
          stop.uninstall();
          await reporter.done();
          await viewer?.close();
          await foxglove?.close();
        }
      },
    );

  program
    .command('summary')
    .description('print the summary of a finished run')
    .argument('<run-dir>', 'run folder (runs/<run-id>)')
    .option('--json', 'print summary.json, with the run folder as run_dir')
    .action(async (dir: string, flags: { json?: boolean }) => {
      if (SweepFolder.isSweepDir(dir))
        throw new UserInputError(
          `${dir} is a sweep folder, not a run folder`,
          [],
          `read ${join(dir, 'summary.csv')}, or pass one of its runs: ${join(dir, 'runs', '<point id>')}`,
        );
      const summary = readRunSummary(dir);
      process.stdout.write(
        flags.json ? `${JSON.stringify({ ...summary, run_dir: resolve(dir) }, null, 2)}\n` : `${formatSummary(summary, dir)}\n`,
      );
    });
}

function foxglovePortOf(value: boolean | string): number {
  if (value === true) return FOXGLOVE_DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(String(value)) || port > 65535)
    throw new UserInputError(
      `--foxglove: "${String(value)}" is not a port`,
      [],
      'give a port from 0 to 65535 (0: a free one), or none for 8765',
    );
  return port;
}

async function startFoxglove(runDir: string, port: number) {
  const { startFoxgloveLive } = await import('../run/mcap/foxglove-live.js');
  const live = await startFoxgloveLive({ runDir, port }).catch((err: unknown) => {
    throw new UserInputError(
      `--foxglove: cannot listen on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`,
      [],
      'choose another port, e.g. --foxglove 0 for a free one',
    );
  });
  process.stderr.write(`foxglove: ${live.url} (in Foxglove: Open connection > Foxglove WebSocket)\n`);
  return live;
}

async function startLiveView(runDir: string) {
  const { startViewServer } = await import('../ui/viewer/view-server.js');
  const viewer = await startViewServer({ runDir, live: true });
  process.stderr.write(`live view: ${viewer.url}\n`);
  return viewer;
}

async function attachReporter(events: EventBus<RunEvent>, json: boolean): Promise<{ done: () => Promise<void> }> {
  if (json) return { done: async () => {} };
  if (process.stdout.isTTY && !process.env.CI) {
    const { createInkReporter } = await import('../ui/terminal/run/ink-reporter.js');
    const ink = createInkReporter();
    events.on(ink.listener);
    let finished = false;
    return {
      done: async () => {
        if (finished) return;
        finished = true;
        await ink.done();
      },
    };
  }
  events.on(createLineReporter());
  return { done: async () => {} };
}

/** What a kept run left up, and how to reach it and end it. */
function describeKept(kept: KeptRun): string {
  const lines = [`run ${kept.runId} is kept: its containers, links, rules and ns-3 channel (pid ${kept.ns3Pid ?? '?'}) stay up.`];
  for (const c of kept.containers) lines.push(`  ${c.name}: control ${c.controlIp}${c.v2vIp ? `, channel (eth1) ${c.v2vIp}` : ''}`);
  const [a, b] = kept.containers.filter((c) => c.v2vIp);
  if (a && b) lines.push(`measure the channel, e.g.: docker exec ${a.name} ping -c 5 ${b.v2vIp}`);
  lines.push(`end it with: cavsim teardown --run ${kept.runId}`);
  return `${lines.join('\n')}\n`;
}
