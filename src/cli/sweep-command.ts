import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, Option } from 'commander';
import { UserInputError } from '../errors.js';
import { chosenStateDir } from '../run/active-runs.js';
import { findLastScenario } from '../run/last-scenario.js';
import { RUN_EXIT_STATUS } from '../run/outcome.js';
import { defaultRunsDir } from '../run/run-folder.js';
import type { SweepAnswer } from '../sweep/answer.js';
import type { SweepEvent } from '../sweep/events.js';
import { failedRunLines } from '../sweep/failed-runs.js';
import { MAX_REPEAT, MAX_SWEEP_RUNS } from '../sweep/limits.js';
import { type PlannedSweep, planSweep, type SweepRequest } from '../sweep/plan-sweep.js';
import { isFinished } from '../sweep/result-row.js';
import type { RunOne } from '../sweep/run-points.js';
import type { SweepOutcome } from '../sweep/run-sweep.js';
import { SLURM_DEFAULTS, slurmResourceProblems } from '../sweep/slurm/job-script.js';
import { openSlurm } from '../sweep/slurm/open-slurm.js';
import { batchScript, planBatch, type SlurmExecutorOptions } from '../sweep/slurm/slurm-executor.js';
import { newSweepId, type Runtime, SWEEPS_DIR, SweepFolder, type SweepSpec } from '../sweep/sweep-folder.js';
import { createSweepLineReporter } from '../ui/terminal/sweep/line-reporter.js';
import { EventBus } from '../util/event-bus.js';
import { shellQuote } from '../util/shell-quote.js';
import { checkWritableFolder, chooseFolder } from '../util/writable-folder.js';
import { addFigureFlags, figureProgress, figureSize } from './figure-flags.js';
import { wholeNumber } from './flag-values.js';
import { printJson } from './json-output.js';
import { printWarnings } from './print-warnings.js';

/** This CLI, as a Slurm task on a node runs it (same Node.js, same build). */
const THIS_CLI = fileURLToPath(new URL('./main.js', import.meta.url));
/** At most this many more attempts per point: a machine too busy for a run four times over is too busy for the sweep. */
const MAX_RETRY_INVALID = 5;
/** Probes a critical search sends to Slurm per round, unless --jobs says otherwise. */
const SLURM_PROBES_PER_ROUND = 8;

const collect = (value: string, previous: string[]) => [...previous, value];

interface SweepFlags {
  delay?: string;
  density?: string;
  set: string[];
  zip?: string | true;
  repeat: number;
  runtime: Runtime;
  jobs?: number;
  retryInvalid: number;
  findCritical?: string | true;
  criterion: string[];
  range?: string;
  tolerance?: string;
  coarse?: number;
  resume?: string;
  sweepsDir?: string;
  plots: boolean;
  runPlots?: boolean;
  json?: boolean;
  executor: 'local' | 'slurm';
  partition?: string;
  time: string;
  mem: string;
  cpusPerTask: number;
  runsPerTask: number;
  dryRun?: boolean;
  cavsimOnNodes?: string;
  figureWidth?: number;
  fontSize?: number;
}

export function registerSweepCommand(program: Command): void {
  const command = program
    .command('sweep')
    .description('run a scenario over a grid of values (or search the critical value) and write summary.csv and plots')
    .argument('[scenario]', 'scenario YAML file (default: the scenario of the last `cavsim up`)')
    .option('--delay <values>', 'channel delays, e.g. 10..300ms (ten values), 10..300ms:10ms, 10,100,200,300ms')
    .option('--density <values>', 'traffic densities (a scenario with a traffic: block), e.g. 20,40,80veh/km or 30..240/km:30/km')
    .option(
      '--set <path=values>',
      'sweep or fix any field, e.g. vehicles.car1.start.speed=5..10:1 (repeatable; several form a grid)',
      collect,
      [],
    )
    .option(
      '--zip [fields]',
      'swept fields that advance together instead of forming a grid, e.g. delay,network.loss (alone: every swept field); same number of values each',
    )
    .option(
      '--repeat <n>',
      `runs per grid point, with seeds seed, seed+1, ... (at most ${MAX_REPEAT})`,
      wholeNumber('--repeat', { min: 1, max: MAX_REPEAT }),
      1,
    )
    .addOption(
      new Option('--runtime <runtime>', 'where each run goes: sim (virtual time, no root) or docker (emulated, root)')
        .choices(['docker', 'sim'])
        .default('sim'),
    )
    .addOption(
      new Option('--executor <executor>', 'local (this machine) or slurm (a job array on the cluster; simulated runtime)')
        .choices(['local', 'slurm'])
        .default('local'),
    )
    .option('--partition <name>', "slurm: partition (default: the cluster's)")
    .option('--time <limit>', 'slurm: wall-time limit per task, e.g. 30:00', SLURM_DEFAULTS.time)
    .option('--mem <size>', 'slurm: memory per task, e.g. 2G', SLURM_DEFAULTS.memory)
    .option('--cpus-per-task <n>', 'slurm: CPUs per task', wholeNumber('--cpus-per-task', { min: 1, max: 256 }), SLURM_DEFAULTS.cpusPerTask)
    .option(
      '--runs-per-task <n>',
      'slurm: runs per array task',
      wholeNumber('--runs-per-task', { min: 1, max: MAX_SWEEP_RUNS }),
      SLURM_DEFAULTS.runsPerTask,
    )
    .option('--cavsim-on-nodes <program>', 'slurm: the program a task runs as cavsim on a node (default: this Node.js and this cavsim)')
    .option('--dry-run', 'slurm: print the job script of a grid sweep and submit nothing')
    .option(
      '--jobs <n>',
      'runs at once (default: all cores for sim, 1 for docker; never more than the cores)',
      wholeNumber('--jobs', { min: 1, max: Number.MAX_SAFE_INTEGER }),
    )
    .option(
      '--retry-invalid <n>',
      'docker: run a point again, up to N times, when its run ends invalid (late on a busy machine); every attempt is kept',
      wholeNumber('--retry-invalid', { min: 0, max: MAX_RETRY_INVALID }),
      0,
    )
    .option(
      '--find-critical [field]',
      'bisect FIELD (delay, or a path; with --range) for where each criterion flips; without FIELD, read it off the grid per value of the other fields',
    )
    .option(
      '--criterion <name>',
      'what fails a run: collision (default), string-stability, delivery<0.9, aoi>200ms, gap<2m (repeatable)',
      collect,
      [],
    )
    .option('--range <lo..hi>', 'range searched by --find-critical, e.g. 10..500ms')
    .option('--tolerance <value>', 'stop --find-critical when the bracket is this narrow, e.g. 5ms')
    .option(
      '--coarse <n>',
      'evenly spaced values --find-critical samples first (checks monotonicity)',
      wholeNumber('--coarse', { min: 2, max: MAX_SWEEP_RUNS }),
    )
    .option('--resume <id>', 'continue sweeps/<id>: finished runs are kept, the rest are run')
    .option('--sweeps-dir <dir>', 'where sweep folders are written (default ./sweeps or $CAVSIM_SWEEPS_DIR)')
    .option('--no-plots', 'skip the figures (cavsim report draws them later)')
    .option('--run-plots', "also draw each run's own kinematics figure")
    .option('--json', 'print the outcome as JSON on stdout');
  addFigureFlags(command).action(async (scenarioArg: string | undefined, flags: SweepFlags) => {
    const sweepsDir = chooseFolder(SWEEPS_DIR, flags.sweepsDir);
    // Everything that can be refused is refused here, before a folder or a worker thread exists.
    let target: { folder: SweepFolder } | { plan: PlannedSweep };
    if (flags.resume) {
      if (scenarioArg || flags.delay || flags.density || flags.set.length || flags.zip || flags.findCritical)
        process.stderr.write('note: --resume runs the sweep as recorded in its grid.json; other sweep flags are ignored\n');
      const folder = SweepFolder.open(sweepsDir.path, flags.resume);
      checkWritableFolder({ path: folder.dir, origin: `--resume ${flags.resume}` });
      target = { folder };
    } else {
      checkWritableFolder(sweepsDir);
      // Every swept value is validated first (a few ms each): say so, a thousand-point sweep takes seconds here.
      process.stderr.write('checking every swept value against the scenario...\n');
      target = { plan: await planSweep(toRequest(scenarioArg ?? lastScenario(), flags)) };
      printWarnings(target.plan.warnings, target.plan.runtime);
    }
    const spec = 'folder' in target ? target.folder.spec : target.plan;
    if (flags.retryInvalid > 0 && spec.runtime !== 'docker')
      throw new UserInputError(
        `--retry-invalid ${flags.retryInvalid}: a simulated run is deterministic: run again, an invalid run is invalid again`,
        [],
        'use --retry-invalid with --runtime docker, or leave it out',
      );
    const slurm = flags.executor === 'slurm' ? slurmOptions(flags, spec.runtime) : undefined;
    if (flags.dryRun) {
      if (!slurm || !('plan' in target) || target.plan.mode.type !== 'grid')
        throw new UserInputError(
          '--dry-run prints the Slurm job script of a new grid sweep',
          [],
          'use it with --executor slurm and --delay or --set, without --resume or --find-critical',
        );
      const id = newSweepId();
      const preview = {
        dir: join(sweepsDir.path, id),
        spec: { ...target.plan, id },
        runsDir: join(sweepsDir.path, id, 'runs'),
      } as unknown as SweepFolder;
      process.stdout.write(batchScript(preview, planBatch(preview, target.plan.mode.points, 0, slurm.runsPerTask), slurm));
      return;
    }
    if (spec.runtime === 'docker') checkWritableFolder(chosenStateDir());
    const { jobs, note } = slurm
      ? { jobs: flags.jobs ?? SLURM_PROBES_PER_ROUND, note: undefined }
      : (await import('../sweep/run-one.js')).chooseJobs({
          requested: flags.jobs,
          runtime: spec.runtime,
          cores: availableParallelism(),
          runs: spec.mode.type === 'grid' ? spec.mode.points.length : undefined,
        });
    if (note) process.stderr.write(`note: ${note}\n`);
    const batch = slurm ? await openSlurm(slurm) : undefined;
    const events = new EventBus<SweepEvent>();
    const reporter = await attachReporter(events);
    let stop = false;
    const onSigint = () => {
      stop = true;
      process.stderr.write('\nstopping after the runs under way; finished runs are kept\n');
    };
    process.once('SIGINT', onSigint);
    const lanes = batch
      ? { runOne: noLocalRuns, jobs, where: batch.where, close: async () => {} }
      : await (await import('../sweep/run-one.js')).openRunLanes(spec.runtime, jobs, () => stop);
    try {
      const deps = {
        runOne: lanes.runOne,
        ...(batch ? { batch } : {}),
        jobs: lanes.jobs,
        events,
        shouldStop: () => stop,
        retryInvalid: flags.retryInvalid,
      };
      const outcome: SweepOutcome =
        'folder' in target
          ? await (await import('../sweep/run-sweep.js')).executeSweep(target.folder, deps)
          : await (await import('../sweep/run-sweep.js')).startSweep(target.plan, sweepsDir.path, deps);
      await reporter.done();
      const report = flags.plots
        ? await (await import('../ui/report/report.js')).writeSweepReport(SweepFolder.open(sweepsDir.path, outcome.dir), {
            runPlots: flags.runPlots,
            size: figureSize(flags),
            ...figureProgress,
          })
        : undefined;
      if (flags.json) {
        printJson({
          sweep: outcome.sweepId,
          dir: outcome.dir,
          stopped: outcome.stopped,
          runs: outcome.results.length,
          answer: outcome.answer,
          critical: outcome.critical,
          files: report,
        });
      } else {
        const lines = [...outcome.answer.lines, ...failedRunLines(outcome.answer.failed ?? [])];
        process.stdout.write(`${lines.join('\n')}\n${outcome.dir}/summary.csv\n${outcome.dir}/points.csv\n`);
        for (const f of report?.figures.filter((f) => f.endsWith('.png')) ?? []) process.stdout.write(`${f}\n`);
        if (outcome.answer.narrow) process.stderr.write(`narrow it down: ${narrowingCommand(outcome.spec, outcome.answer.narrow)}\n`);
      }
      const planned = outcome.spec.mode.type === 'grid' ? outcome.spec.mode.points.length : outcome.results.length;
      const missing = planned - outcome.results.filter(isFinished).length;
      if (outcome.stopped) {
        process.stderr.write(`stopped: ${missing} of ${planned} runs not done; \`cavsim sweep --resume ${outcome.sweepId}\` runs them\n`);
        process.exitCode = RUN_EXIT_STATUS.interrupted;
      } else if (missing > 0 || outcome.results.some((r) => r.status === 'failed')) {
        if (missing > 0)
          process.stderr.write(`${missing} of ${planned} runs not done; \`cavsim sweep --resume ${outcome.sweepId}\` runs them\n`);
        process.exitCode = RUN_EXIT_STATUS.failed;
      }
    } finally {
      process.off('SIGINT', onSigint);
      await reporter.done();
      await lanes.close();
    }
  });
}

const noLocalRuns: RunOne = () => Promise.reject(new Error('a Slurm sweep runs nothing locally'));

function slurmOptions(flags: SweepFlags, runtime: Runtime): SlurmExecutorOptions {
  if (runtime !== 'sim') {
    throw new UserInputError(
      '--executor slurm runs the simulated runtime (no root on cluster nodes), not --runtime docker',
      [],
      'drop --runtime docker (sim is the default)',
    );
  }
  const resources = {
    ...(flags.partition !== undefined ? { partition: flags.partition } : {}),
    time: flags.time,
    memory: flags.mem,
    cpusPerTask: flags.cpusPerTask,
  };
  const problems = slurmResourceProblems(resources);
  if (problems.length)
    throw new UserInputError(
      'the Slurm resources asked for are not what Slurm accepts',
      problems,
      'see `cavsim sweep --help` for the forms each flag takes',
    );
  return {
    resources,
    runsPerTask: flags.runsPerTask,
    cavsim: flags.cavsimOnNodes ? [flags.cavsimOnNodes] : [process.execPath, THIS_CLI],
  };
}

/** `cavsim sweep-task`: what a Slurm array task runs on its node (not for people). */
export function registerSweepTaskCommand(program: Command): void {
  program
    .command('sweep-task', { hidden: true })
    .description('run one Slurm array task of a sweep (written by cavsim sweep --executor slurm)')
    .argument('<sweepDir>')
    .requiredOption('--batch <n>', 'batch number', wholeNumber('--batch', { min: 0, max: Number.MAX_SAFE_INTEGER }))
    .requiredOption('--task <i>', 'array task index', wholeNumber('--task', { min: 0, max: Number.MAX_SAFE_INTEGER }))
    .action(async (sweepDir: string, flags: { batch: number; task: number }) => {
      process.exitCode = await (await import('../sweep/slurm/sweep-task.js')).runSweepTask(sweepDir, flags.batch, flags.task, (line) =>
        process.stderr.write(`${line}\n`),
      );
    });
}

/** The ink view on an interactive terminal, plain lines otherwise (logs, CI, pipes). Both write to stderr. */
async function attachReporter(events: EventBus<SweepEvent>): Promise<{ done: () => Promise<void> }> {
  if (process.stderr.isTTY && !process.env.CI) {
    const { createSweepInkReporter } = await import('../ui/terminal/sweep/ink-reporter.js');
    const ink = createSweepInkReporter();
    events.on(ink.listener);
    return ink;
  }
  events.on(createSweepLineReporter());
  return { done: async () => {} };
}

function toRequest(scenario: string, flags: SweepFlags): SweepRequest {
  const request: SweepRequest = {
    scenario,
    delay: flags.delay,
    ...(flags.density === undefined ? {} : { density: flags.density }),
    sets: flags.set,
    ...(flags.zip === undefined ? {} : { zip: flags.zip === true ? [] : flags.zip.split(',').map((f) => f.trim()) }),
    repeat: flags.repeat,
    runtime: flags.runtime,
    ...(flags.criterion.length ? { criteria: flags.criterion } : {}),
  };
  if (flags.findCritical === true) {
    // Read off the grid: the answer gives each criterion's critical value per value of the other fields.
    if (flags.range || flags.tolerance || !(flags.delay || flags.density || flags.set.length))
      throw new UserInputError(
        '--find-critical without a field reads the critical value off a grid',
        [],
        'give the grid (--delay 10..300ms:30ms, --set network.loss=0,0.2) and no --range, or name the field: --find-critical delay --range 10..500ms --tolerance 5ms',
      );
  } else if (flags.findCritical) {
    if (!flags.range || !flags.tolerance)
      throw new UserInputError(
        '--find-critical needs --range and --tolerance',
        [],
        'e.g. --find-critical delay --range 10..500ms --tolerance 5ms',
      );
    request.critical = { path: flags.findCritical, range: flags.range, tolerance: flags.tolerance, coarse: flags.coarse };
  } else if (flags.range || flags.tolerance) {
    throw new UserInputError('--range and --tolerance go with --find-critical');
  }
  return request;
}

/** The scenario file of the newest run folder; says which run it came from and which newer runs it passed over. */
function lastScenario(): string {
  const runsDir = defaultRunsDir();
  const { found, skipped } = findLastScenario(runsDir);
  for (const s of skipped) process.stderr.write(`note: passed over a run: ${s}\n`);
  if (!found)
    throw new UserInputError(
      'no scenario given and no earlier run to take it from',
      [`${runsDir}: no run folder with a usable scenario`],
      'name the scenario: cavsim sweep scenarios/head-on-brake.yaml --delay 10..300ms',
    );
  process.stderr.write(`note: sweeping ${found.file}, the scenario of run ${found.runId}\n`);
  return found.file;
}

/** The `--find-critical` sweep that searches a grid's bracket, under the grid's own fixed settings. */
function narrowingCommand(spec: SweepSpec, narrow: NonNullable<SweepAnswer['narrow']>): string {
  const scenario = relative(process.cwd(), spec.scenario);
  const words = ['cavsim', 'sweep', scenario.startsWith('..') ? spec.scenario : scenario, '--runtime', spec.runtime];
  for (const f of spec.fixed) words.push('--set', f);
  if (spec.repeat > 1) words.push('--repeat', String(spec.repeat));
  words.push('--find-critical', narrow.path, '--range', narrow.range, '--tolerance', narrow.tolerance);
  return words.map(shellQuote).join(' ');
}
