import { copyFileSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse as parseYaml } from 'yaml';
import { Journal } from '../../journal/journal.js';
import { createJournaledDocker, dockerUndoers } from '../../docker/journaled.js';
import { describePruned, ensureImages } from '../../docker/images.js';
import { computeContextHash, repoBuildContext } from '../../docker/build-context.js';
import { setUpHostNetwork } from '../../hostnet/set-up.js';
import { hostNetUndoers } from '../../hostnet/undoers.js';
import { compileChannelProgram, builtinChannelScript } from '../../ns3/compile.js';
import { startChannel, type StartedChannel } from '../../ns3/channel.js';
import { processUndoers } from '../../ns3/process-identity.js';
import { RunFolder } from '../../run/run-folder.js';
import { registerActiveRun, unregisterActiveRun } from '../../run/active-runs.js';
import { percentileOfSorted } from '../../util/percentile.js';
import { CavsimError } from '../../errors.js';
import type { RunSummary } from '../../measurement/summary.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import type { RunEvents } from '../run-events.js';
import type { Undoer } from '../../journal/journal.js';
import { planEmulatedRun, withVehiclePids, type EmulatedRunPlan } from './plan-emulated.js';
import type { ControlLink, EmulatedRunDeps } from './emulated-deps.js';
import type { SimulatorStatus } from '../../bridge/control-topics.js';

export interface EmulatedRunOptions {
  runsDir: string;
  runId?: string;
  events?: RunEvents;
  /** Leave containers, links, rules and ns-3 running after the run (undo later with `cavsim teardown`). */
  keep?: boolean;
  shouldStop?: () => boolean;
}

export interface EmulatedRunOutcome {
  summary: RunSummary;
  runDir: string;
  /** Milliseconds from the call to the `start` command, and for the teardown. */
  phases: Record<string, number>;
}

export function allUndoers(deps: Pick<EmulatedRunDeps, 'docker' | 'hostNet'>): Record<string, Undoer> {
  return { ...dockerUndoers(deps.docker), ...hostNetUndoers(deps.hostNet), ...processUndoers };
}

/**
 * `cavsim up --runtime docker`: images, control network, simulator and vehicle containers, per-vehicle
 * bridge/tap/veth plumbing and rules, the ns-3 channel, then the experiment in real time. Every host
 * resource is journaled before it exists; any failure (or the end of the run, unless `keep`)
 * replays the journal backwards, so nothing leaks.
 */
export async function runEmulated(scenario: ResolvedScenario, deps: EmulatedRunDeps, opts: EmulatedRunOptions): Promise<EmulatedRunOutcome> {
  const t0 = performance.now();
  const phases: Record<string, number> = {};
  const mark = (name: string) => (phases[name] = Math.round(performance.now() - t0));
  const emit = (phase: string, detail?: string) => opts.events?.emit({ type: 'phase', phase, detail });

  const folder = RunFolder.create(opts.runsDir, opts.runId);
  folder.writeScenario(scenario);
  copyMap(scenario.mapFile, join(folder.dir, 'map'));
  const plan = planEmulatedRun(scenario, folder.runId, folder.dir);
  writeFileSync(folder.file('plan.json'), JSON.stringify(plan, null, 2) + '\n');
  const journal = Journal.open(folder.file('journal.jsonl'));
  registerActiveRun(plan.runId, journal.path);
  const undoers = allUndoers(deps);

  let failure: unknown;
  let channel: StartedChannel | undefined;
  let control: ControlLink | undefined;
  try {
    emit('images', 'checking the simulator and vehicle images');
    const contextHash = await computeContextHash(deps.repoRoot);
    await ensureImages({ docker: deps.docker, context: repoBuildContext(deps.repoRoot) }, { contextHash }, (e) => {
      if (e.type === 'image-build-start') emit('images', `building ${e.tag} (${e.reason})`);
      if (e.type === 'image-build-done') emit('images', `built ${e.tag} in ${(e.elapsedMs / 1000).toFixed(1)} s`);
      if (e.type === 'images-pruned' && (e.removed.length || e.error)) emit('images', describePruned(e));
    });
    mark('images');

    emit('channel', 'compiling the ns-3 channel program (cached)');
    const source = plan.channel.script === 'builtin:csma-tap' ? builtinChannelScript() : plan.channel.script;
    const binary = await compileChannelProgram(source, { runner: deps.runner });
    mark('compiled');

    emit('containers', `network ${plan.network.name}, simulator and ${plan.vehicles.length} vehicles`);
    const docker = createJournaledDocker(deps.docker, journal, plan.runId);
    await docker.createNetwork(plan.network);
    await docker.createContainer(plan.simulator);
    await deps.docker.startContainer(plan.simulator.name);
    const pids: Record<string, number> = {};
    for (const v of plan.vehicles) {
      await docker.createContainer(v);
      await deps.docker.startContainer(v.name);
      const info = await deps.docker.inspectContainer(v.name);
      if (!info?.pid) throw new CavsimError('RUN_FAILED', `vehicle container ${v.name} is not running (exit code ${info?.exitCode ?? '?'})`, `see ${folder.file('logs')}`);
      pids[v.vehicle] = info.pid;
    }
    mark('containers');

    emit('network', `bridges, taps, veths and rules for ${plan.vehicles.length} vehicles`);
    await setUpHostNetwork(withVehiclePids(plan.hostNet, pids), { journal, ops: deps.hostNet });
    mark('network');

    emit('channel', `ns-3 ${basename(source)} ${plan.channel.args.join(' ')}`);
    channel = await startChannel({ binary, args: plan.channel.args, logPath: folder.file('ns3.log'), journal });
    mark('channel');

    emit('connecting', `simulator at ${plan.simulator.controlUrl}`);
    control = await deps.connectControl(plan.simulator.controlUrl, 30_000).catch(async (err: unknown) => {
      throw (await simulatorExitError(deps, plan, 'before it accepted connections')) ?? err;
    });
    await control.waitForVehicles(plan.vehicles.map((v) => v.vehicle), 30_000);
    control.onStatus(progressReporter(scenario, opts.events));
    await control.start();
    mark('started');

    emit('running', `${scenario.duration} s in real time`);
    await waitForSimulator(deps, plan, scenario.duration, opts.shouldStop, control);
    mark('finished');
  } catch (err) {
    failure = err;
  } finally {
    await control?.close().catch(() => {});
  }

  const lag = channel?.lagSamplesMs() ?? [];
  const summary = finaliseSummary(folder, scenario, failure, lag, phases);
  await saveContainerLogs(deps, plan, folder.file('logs'));
  if (!opts.keep || failure) {
    emit('teardown', opts.keep ? 'the run failed: undoing what it built' : 'undoing everything the run created');
    const t = performance.now();
    const report = await journal.teardown(undoers);
    phases.teardown = Math.round(performance.now() - t);
    if (!report.failed.length) unregisterActiveRun(plan.runId);
    if (report.failed.length) {
      opts.events?.emit({ type: 'log', level: 'warn', message: `teardown left: ${report.failed.map((f) => `${f.entry.kind} ${f.entry.id} (${f.error})`).join('; ')}; run \`cavsim teardown --run ${plan.runId}\`` });
    }
  } else {
    emit('kept', `still running; undo with: cavsim teardown --run ${plan.runId}`);
  }
  opts.events?.emit({ type: 'summary', summary, runDir: folder.dir });
  return { summary, runDir: folder.dir, phases };
}

/** The map YAML and its image, copied so the simulator container reads them from the run folder. */
function copyMap(mapFile: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  copyFileSync(mapFile, join(dir, basename(mapFile)));
  const meta = parseYaml(readFileSync(mapFile, 'utf8')) as { image?: string };
  if (meta.image) {
    const image = resolve(dirname(mapFile), meta.image);
    const target = join(dir, meta.image);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(image, target);
  }
}

async function waitForSimulator(
  deps: EmulatedRunDeps,
  plan: EmulatedRunPlan,
  duration: number,
  shouldStop: (() => boolean) | undefined,
  control: ControlLink,
): Promise<void> {
  const deadline = performance.now() + (duration + 30) * 1000;
  let stopSent = false;
  for (;;) {
    const info = await deps.docker.inspectContainer(plan.simulator.name);
    if (!info?.running) {
      if (info?.exitCode) throw (await simulatorExitError(deps, plan, 'during the run'))!;
      return;
    }
    if (!stopSent && shouldStop?.()) {
      stopSent = true;
      await control.stop();
    }
    if (performance.now() > deadline) throw new CavsimError('RUN_FAILED', `the simulator did not finish within ${duration + 30} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function progressReporter(scenario: ResolvedScenario, events: RunEvents | undefined) {
  return (status: SimulatorStatus) => {
    if (status.phase !== 'running') return;
    events?.emit({ type: 'progress', t: status.t_s, duration: scenario.duration, cars: status.cars, minTtc: status.min_ttc_s, ...(status.lateness ? { lateness: status.lateness } : {}) });
  };
}

/**
 * The simulator writes summary.json; the host adds what only it saw (the ns-3 process's lag, phase
 * timings) and, if the run failed before the simulator could write anything, a failed summary that
 * keeps whatever was measured and says why.
 */
function finaliseSummary(folder: RunFolder, scenario: ResolvedScenario, failure: unknown, lagMs: number[], phases: Record<string, number>): RunSummary {
  const reason = failure instanceof Error ? failure.message : failure === undefined ? undefined : String(failure);
  const written = folder.readSummary();
  const sortedLag = [...lagMs].sort((a, b) => a - b);
  const channelTiming = {
    ns3_lag_p50_ms: percentileOfSorted(sortedLag, 50) ?? null,
    ns3_lag_p99_ms: percentileOfSorted(sortedLag, 99) ?? null,
    ns3_lag_max_ms: sortedLag.at(-1) ?? null,
    phases_ms: phases,
  };
  const summary: RunSummary = written
    ? { ...written, timing: { ...(written.timing ?? {}), ...channelTiming } }
    : failedSummary(folder, scenario, reason ?? 'the simulator wrote no summary', channelTiming);
  if (failure && summary.status !== 'failed') {
    summary.status = 'failed';
    summary.reason = reason;
  }
  folder.writeSummary(summary);
  return summary;
}

function failedSummary(folder: RunFolder, scenario: ResolvedScenario, reason: string, timing: Record<string, unknown>): RunSummary {
  return {
    schema: 'cavsim.summary/1',
    run_id: folder.runId,
    scenario: scenario.name,
    runtime: 'docker',
    status: 'failed',
    reason,
    seed: scenario.seed,
    duration_s: scenario.duration,
    sim_time_s: 0,
    wall_time_s: 0,
    steps: 0,
    min_ttc_s: null,
    min_distance_m: null,
    collision: false,
    first_collision_t_s: null,
    pairs: [],
    collisions: [],
    v2v: { sent: 0, received: 0, lost: 0, p50_ms: null, p99_ms: null, max_ms: null, mean_ms: null },
    events: [],
    timing,
    parameters: scenario,
  };
}

/** Why the run failed when the simulator container is gone: its status and last log lines. */
async function simulatorExitError(deps: EmulatedRunDeps, plan: EmulatedRunPlan, when: string): Promise<CavsimError | undefined> {
  const info = await deps.docker.inspectContainer(plan.simulator.name).catch(() => undefined);
  if (!info || info.running) return undefined;
  const tail = await deps.docker.logs?.(plan.simulator.name).catch(() => undefined);
  const lastLines = (tail ?? '').trim().split('\n').filter(Boolean).slice(-3).join(' | ');
  return new CavsimError(
    'RUN_FAILED',
    `the simulator container exited with status ${info.exitCode ?? '?'} ${when}${lastLines ? `: ${lastLines}` : ''}`,
    `see ${join(plan.runDir, 'logs', `${plan.simulator.name}.log`)}`,
  );
}

async function saveContainerLogs(deps: EmulatedRunDeps, plan: EmulatedRunPlan, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const c of [plan.simulator, ...plan.vehicles]) {
    try {
      const text = await deps.docker.logs?.(c.name);
      if (text !== undefined) writeFileSync(join(dir, `${c.name}.log`), text);
    } catch {
      // A container that never started has no logs; the summary says why the run failed.
    }
  }
}
