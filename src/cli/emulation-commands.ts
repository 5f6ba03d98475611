import { type Command, Option } from 'commander';
import type { RuntimeReadiness } from '../api/doctor/index.js';
import { EXIT_STATUS, UserInputError } from '../errors.js';
import { checkRunId, defaultRunsDir, newRunId } from '../run/run-folder.js';
import { kindsWhere } from '../scenario/channel-kinds.js';
import { loadScenario } from '../scenario/load-scenario.js';
import { printJson } from './json-output.js';
import { printLoadWarnings, printWarnings } from './print-warnings.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * teardown, status, doctor, images, plan: the commands around an emulated run. Each loads its
 * part of the API (and with it Docker's client) only when it runs, so `validate` and the
 * simulated runtime never load Docker code.
 */
export function registerEmulationCommands(program: Command): void {
  program
    .command('teardown')
    .description('undo what a kept or crashed run created, from its journal (containers, network, links, rules, ns-3)')
    .addOption(new Option('--run <id>', 'the run to undo'))
    .addOption(new Option('--all', 'every run whose cavsim process is gone (crashed, killed or kept runs)'))
    .addOption(new Option('--force', 'also runs whose cavsim process is still running (ends them)'))
    .option('--json', 'print what was undone as JSON')
    .action(async (opts: { run?: string; all?: boolean; force?: boolean; json?: boolean }) => {
      if (opts.run) checkRunId('--run', opts.run, 'see `cavsim status` for the runs that still hold resources');
      const { runsHoldingResources, teardownRuns } = await import('../api/teardown.js');
      if (!opts.run && !opts.all) {
        const held = runsHoldingResources();
        if (held.length)
          throw new UserInputError(
            'say which run to tear down',
            ['--run <id> or --all', `runs holding resources: ${held.map((r) => r.runId).join(', ')}`],
            'see `cavsim status` for the runs that still hold resources',
          );
        if (opts.json) return void process.stdout.write(`${JSON.stringify({ runs: [], live: [] }, null, 2)}\n`);
        return void process.stdout.write('nothing to undo: no run holds resources\n');
      }
      const { undone, live } = await teardownRuns({ runId: opts.run, all: opts.all, force: opts.force });
      if (undone.some((r) => r.report.failed.length)) process.exitCode = EXIT_STATUS.EXTERNAL_PROCESS;
      if (opts.json) {
        const entry = (e: { kind: string; id: string }) => ({ kind: e.kind, id: e.id });
        const runs = undone.map((r) => ({
          run_id: r.runId,
          undone: r.report.undone.map(entry),
          left_alone: r.report.leftAlone.map((l) => ({ ...entry(l.entry), reason: l.reason })),
          failed: r.report.failed.map((f) => ({ ...entry(f.entry), error: f.error })),
        }));
        return void process.stdout.write(
          `${JSON.stringify({ runs, live: live.map((r) => ({ run_id: r.runId, owner_pid: r.owner?.pid ?? null })) }, null, 2)}\n`,
        );
      }
      if (!undone.length && !live.length) process.stdout.write('nothing to tear down\n');
      for (const r of undone) {
        process.stdout.write(
          `${r.runId}: undid ${r.report.undone.length} resource(s)${r.report.failed.length ? `, ${r.report.failed.length} failed` : ''}\n`,
        );
        for (const l of r.report.leftAlone) process.stdout.write(`  ${l.entry.kind} ${l.entry.id}: ${l.reason}\n`);
        for (const f of r.report.failed) process.stdout.write(`  ${f.entry.kind} ${f.entry.id}: ${f.error}\n`);
      }
      for (const r of live)
        process.stdout.write(`${r.runId}: live (cavsim process ${r.owner?.pid} is running it); left alone, --force to end it\n`);
    });

  program
    .command('status')
    .description('list runs that still hold host resources, and what they hold')
    .option('--json', 'print the runs as JSON: run_id, state, owner_pid, journal, resources [{kind, id}]')
    .action(async (flags: { json?: boolean }) => {
      const { runsHoldingResources } = await import('../api/status.js');
      const runs = runsHoldingResources();
      if (flags.json) {
        printJson({
          runs: runs.map((r) => ({ run_id: r.runId, state: r.state, owner_pid: r.ownerPid, journal: r.journal, resources: r.resources })),
        });
        return;
      }
      if (!runs.length) process.stdout.write('no run holds host resources\n');
      for (const r of runs) {
        const state =
          r.state === 'live' ? `live, cavsim process ${r.ownerPid}` : r.state === 'kept' ? 'kept' : 'its cavsim process is gone';
        process.stdout.write(`${r.runId}: ${r.resources.length} resource(s), ${state}  (${r.journal})\n`);
        for (const e of r.resources) process.stdout.write(`  ${e.kind} ${e.id}\n`);
      }
    });

  program
    .command('doctor')
    .description('check every prerequisite of an emulated run, say how to fix what is missing, and what each runtime can do here')
    .option('--json', 'print {passed, checks: [{name, ok, detail, fix, advisory}]} as JSON')
    .option('--hosts <file>', 'also check each host of this hosts file: engine, route, images (default $CAVSIM_HOSTS)')
    .action(async (opts: { json?: boolean; hosts?: string }) => {
      const { doctorThisHost, doctorPassed, runtimeReadiness } = await import('../api/doctor/index.js');
      const results = await doctorThisHost({ hostsFile: opts.hosts });
      const runtimes = runtimeReadiness(results);
      if (opts.json) printJson({ passed: doctorPassed(results), checks: results, runtimes });
      else {
        for (const r of results) {
          process.stdout.write(`${r.ok ? 'ok  ' : r.advisory ? 'note' : 'FAIL'}  ${r.name}: ${r.detail}\n`);
          if (!r.ok && r.fix) process.stdout.write(`      fix: ${r.fix}\n`);
        }
        process.stdout.write(`\n${readinessText(runtimes)}`);
      }
      if (!doctorPassed(results)) process.exitCode = 3;
    });

  program
    .command('images')
    .description('build the simulator and vehicle images if they are missing or carry older code')
    .option('--force', 'rebuild even when up to date')
    .option('--check', 'only say whether they are up to date (exit 3 when one needs building); builds and removes nothing')
    .option('--json', 'print each image as JSON: role, tag, id, up_to_date, reason')
    .action(async (opts: { force?: boolean; check?: boolean; json?: boolean }) => {
      if (opts.check && opts.force)
        throw new UserInputError('--check and --force contradict each other', [], 'use --check to look, or --force to rebuild');
      const { describePruned, prepareImages } = await import('../api/images.js');
      const states = await prepareImages(opts, (e) => {
        if (e.type === 'image-up-to-date') process.stderr.write(`${e.tag}: up to date\n`);
        if (e.type === 'image-build-start') process.stderr.write(`${e.tag}: building (${e.reason})\n`);
        if (e.type === 'image-build-output' && e.line.startsWith('Step ')) process.stderr.write(`  ${e.line}\n`);
        if (e.type === 'image-build-done') process.stderr.write(`${e.tag}: built in ${(e.elapsedMs / 1000).toFixed(1)} s\n`);
        if (e.type === 'images-pruned') process.stderr.write(`${describePruned(e)}\n`);
      });
      const stale = states.filter((s) => s.reason);
      if (opts.json)
        printJson({
          images: states.map((s) => ({ role: s.role, tag: s.tag, id: s.id ?? null, up_to_date: !s.reason, reason: s.reason ?? null })),
        });
      else if (opts.check)
        for (const s of states) process.stdout.write(`${s.tag}: ${s.reason ? `needs building (${s.reason})` : 'up to date'}\n`);
      if (opts.check && stale.length) {
        process.stderr.write(`${stale.length} image(s) need building: \`cavsim images\` builds them (up does too)\n`);
        process.exitCode = EXIT_STATUS.ENVIRONMENT;
      }
    });

  program
    .command('plan')
    .description('print what an emulated run of a scenario would create, without touching the host')
    .argument('<scenario>', 'scenario YAML file')
    .option('--set <path=value>', 'override a field (repeatable)', collect, [])
    .option('--json', 'the same JSON (the plan is always printed as JSON, as plan.json holds it)')
    .option('--hosts <file>', 'place the cars on the hosts of this file as `cavsim up --hosts` would (default $CAVSIM_HOSTS)')
    .action(async (file: string, opts: { set: string[]; hosts?: string }) => {
      const scenario = await loadScenario(file, { overrides: opts.set, runtime: 'docker' });
      printWarnings(scenario.warnings, 'docker');
      printLoadWarnings(scenario, 'docker');
      const { planScenarioEmulated } = await import('../api/plan-emulated.js');
      const planned = await planScenarioEmulated(scenario, { runId: newRunId(), runsDir: defaultRunsDir(), hostsFile: opts.hosts });
      if (planned.placement) process.stderr.write(`hosts: ${planned.placement}\n`);
      process.stdout.write(`${JSON.stringify(planned.plan, null, 2)}\n`);
    });
}

function readinessText({ docker, sim }: RuntimeReadiness): string {
  const emulated = docker.ready ? 'ready' : `not ready (${docker.blocking.join(', ')})`;
  const engine = sim.engine === 'ns3' ? 'ns-3 in lock-step' : `the builtin models; ${kindsWhere((k) => !k.builtin).join(', ')} needs ns-3`;
  return `emulated runtime (cavsim up): ${emulated}\nsimulated runtime (--runtime sim): ready, channels ${sim.channels.join(', ')} on ${engine}\n`;
}
