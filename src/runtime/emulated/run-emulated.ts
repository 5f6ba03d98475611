import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UserInputError } from '../../errors.js';
import { CAVSIM_IMAGES } from '../../host/docker/images.js';
import { RunInterrupted } from '../../run/finish-run.js';
import { recordRunMcap } from '../../run/mcap/record-run-mcap.js';
import { ComponentFailedError } from '../../run/outcome.js';
import { RUN_FILES } from '../../run/run-files.js';
import { type RunOptions, RunSession } from '../../run/run-session.js';
import type { RunSummary } from '../../run/summary.js';
import { isRadio, isWifi, noNs3Program } from '../../scenario/channel-kinds.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { loadScenarioMap } from '../../scenario/scenario-map.js';
import { percentileOfSorted } from '../../util/percentile.js';
import { writeFileNoFollow } from '../../util/write-no-follow.js';
import { ChannelProcess } from './channel-process.js';
import { ComponentWatch } from './component-watch.js';
import { ControlSession } from './control-session.js';
import { type DeviceLink, DeviceLinkLoadWatch, deviceLoadWarnings } from './device-link-load.js';
import type { EmulatedRunDeps } from './emulated-deps.js';
import { prepareImages } from './emulated-images.js';
import { HostSide } from './host-side.js';
import { writeMapGrid } from './map-grid-file.js';
import { describePlacement, placeVehicles } from './placement.js';
import { type EmulatedRunPlan, planEmulatedRun } from './plan-emulated.js';
import { RemoteCars } from './remote-cars.js';
import { startContainers } from './run-containers.js';
import { RunPhases } from './run-phases.js';
import { type ProbedTiming, probeBeforeStart } from './stack-calibration.js';

export { allUndoers } from './host-side.js';

export interface EmulatedRunOptions extends RunOptions {
  /** Leave containers, links, rules and ns-3 running after the scenario (undo later with `cavsim teardown`). */
  keep?: boolean;
  /** How long a failed set-up step waits for a component's death to name the cause (default 800 ms). */
  failureSettleMs?: number;
  /** false: ns-3 applies network.delay as it is, the stack share stays in the measured delays (benchmarks compare). */
  calibrateDelay?: boolean;
  /** false: every car runs the Node vehicle program, even where the light-car one could (benchmarks compare). */
  lightCars?: boolean;
}

export interface EmulatedRunOutcome {
  summary: RunSummary;
  runDir: string;
  /** Milliseconds from the call to the `start` command, and for the teardown. */
  phases: Record<string, number>;
  /** Set when the run was kept: what is still up and how to reach it. */
  kept?: KeptRun;
  /** Set when the teardown could not undo everything: what is left and the command that undoes it. */
  leftovers?: string;
}

export interface KeptRun {
  runId: string;
  containers: { name: string; vehicle?: string; controlIp: string; v2vIp?: string }[];
  ns3Pid: number | undefined;
  teardown: string;
}

const stopReason = (opts: EmulatedRunOptions) => opts.stopReason?.() ?? 'stopped by the user';

/**
 * `cavsim up --runtime docker`: images, control network, simulator and vehicle containers, per-vehicle
 * bridge/tap/veth plumbing and rules, the ns-3 channel, then the experiment in real time. Every host
 * resource is journaled before it exists. Every component is watched for the whole run: the first
 * to die ends it as `failed`, named. Any end (but a kept, healthy one) replays the journal backwards.
 *
 * Each step owns what it builds and registers its release on the run session as it builds it: the
 * host side (container logs, then the journal's teardown) at `close`, after the summary is written;
 * the component watch and the control session (link, relays, timers) on a scope released as soon
 * as the run ends, before the summary. A failure half-way unwinds exactly what was built.
 */
export async function runEmulated(
  scenario: ResolvedScenario,
  deps: EmulatedRunDeps,
  opts: EmulatedRunOptions,
): Promise<EmulatedRunOutcome> {
  const session = await RunSession.open('docker', scenario, opts);
  try {
    return await runInSession(session, deps, opts);
  } catch (err) {
    await session.close(err);
    throw err;
  }
}

async function runInSession(session: RunSession, runDeps: EmulatedRunDeps, opts: EmulatedRunOptions): Promise<EmulatedRunOutcome> {
  const { folder, scenario } = session;
  const phases = new RunPhases();
  const emit = (phase: string, detail?: string) => opts.events?.emit({ type: 'phase', phase, detail });
  const checkStop = () => {
    if (opts.shouldStop?.()) throw new RunInterrupted(`${stopReason(opts)} before the run started`);
  };

  if (scenario.mapFile !== undefined) copyMap(scenario.mapFile, join(folder.dir, 'map'));
  await writeMapGrid(scenario, folder.dir);
  const placement = runDeps.remote ? placeVehicles(scenario, runDeps.remote.hosts) : undefined;
  const plan = planEmulatedRun(scenario, folder.runId, folder.dir, {
    keep: opts.keep,
    calibrateDelay: opts.calibrateDelay,
    lightCars: opts.lightCars !== false && runDeps.lightCarProgram === true,
    ...(placement ? { placement } : {}),
  });
  writeFileNoFollow(folder.file(RUN_FILES.plan), `${JSON.stringify(plan, null, 2)}\n`);
  // Cars on other hosts: container calls go to each car's engine, tunnel steps to each host.
  const remote = plan.vehicles.some((v) => v.host) ? new RemoteCars(runDeps, plan) : undefined;
  const deps = remote?.deps ?? runDeps;
  if (placement) emit('hosts', describePlacement(placement));
  const host = HostSide.open(session, deps, plan, phases, emit);
  const running = session.scope('the running run (component watch, control link, relays, timers)');
  const watch = new ComponentWatch(opts.failureSettleMs);
  running.defer('the component watch', () => watch.close());
  const channel = new ChannelProcess(session, deps, plan, emit);
  const control = new ControlSession(running, deps, plan, watch, { ...opts, stopReason: () => stopReason(opts) });
  const deviceLoad = new DeviceLinkLoadWatch(deviceLinks(scenario), deps.linkBytes ?? (() => undefined));

  let failure: unknown;
  let probed: ProbedTiming = {};
  try {
    await prepareImages(session, deps, emit);
    await remote?.shipImages(CAVSIM_IMAGES.vehicle, (line) => emit('images', line));
    phases.mark('images');
    checkStop();
    await channel.compile();
    phases.mark('compiled');
    checkStop();
    const simulator = await startContainers(host, deps, plan, watch, phases, emit, remote);
    checkStop();
    const ns3 = await channel.start(host.journal, watch);
    phases.mark('channel');
    await control.connect(simulator, ns3.positionsPort());
    phases.mark('connected');
    // once the cars are up and idle (probes beside their start-up measured it, not the run); a delay below the share is refused before they move
    probed = await probeBeforeStart(deps.docker, plan, ns3);
    if (probed.calibration) opts.events?.emit({ type: 'log', level: 'warn', message: probed.calibration.warning });
    for (const line of probed.hosts?.lines ?? []) emit('hosts', line);
    phases.mark('calibrated');
    checkStop();
    await control.start(scenario);
    phases.mark('started');
    deviceLoad.start();
    emit('running', `${scenario.duration} s in real time`);
    await control.runToEnd();
    phases.mark('finished');
  } catch (err) {
    failure = err;
    await control.stopSimulator(err);
  } finally {
    await running.release();
  }

  const calibration = probed.calibration;
  failure = judgeFailure(failure, session, host, watch, phases, opts);
  await recordMcap(session, control.timeBaseNs, phases, opts);
  const lag = channel.lagSamplesMs();
  const deviceLoads = deviceLoad.stop(channelRate(scenario));
  session.finish({
    failure,
    interrupted: opts.shouldStop?.() ? stopReason(opts) : undefined,
    invalid:
      [channelLagProblem(lag), watch.engineProblem(phases.startedAtMs), calibration?.invalid, probed.hosts?.invalid]
        .filter(Boolean)
        .join('; ') || undefined,
    wallTime: phases.sinceStart(),
    timing: {
      ...channelTiming(lag, phases.ms),
      ...(control.timeBaseNs !== undefined ? { t0_epoch_ns: control.timeBaseNs.toString() } : {}),
      ...(Object.keys(deviceLoads).length ? { external_v2v: deviceLoads } : {}),
      ...(calibration ? { stack_calibration: calibration.calibration } : {}),
      ...(probed.hosts ? { hosts: probed.hosts.figures } : {}),
    },
    warnings: [...(calibration ? [calibration.warning] : []), ...deviceLoadWarnings(deviceLoads)],
  });
  const kept = opts.keep === true && failure === undefined ? describeKept(plan, channel.pid) : undefined;
  if (kept) host.keep();
  // Saves the containers' logs and undoes what the run created (or keeps it), then says the summary.
  const summary = await session.close();
  return {
    summary,
    runDir: folder.dir,
    phases: phases.ms,
    ...(kept ? { kept } : {}),
    ...(host.leftovers ? { leftovers: host.leftovers } : {}),
  };
}

/**
 * The run's failure, given how its folder says it ended: a SIGTERM the host did not send, a forced
 * teardown, or (no failure of the host's) a simulator that ended the run itself and said why.
 */
function judgeFailure(
  failure: unknown,
  session: RunSession,
  host: HostSide,
  watch: ComponentWatch,
  phases: RunPhases,
  opts: EmulatedRunOptions,
): unknown {
  const written = session.folder.readSummary();
  if (failure === undefined && !opts.shouldStop?.() && written?.status === 'interrupted')
    failure = stoppedFromOutside(written.reason, watch.engineProblem(phases.startedAtMs) !== undefined);
  const forced = host.forcedTeardown();
  if (forced)
    failure = new RunInterrupted(`ended by \`cavsim teardown --force\` (pid ${forced.pid}), which undid what the run had created`);
  // A simulator that ended the run itself (its disk full, say) exits 1 and wrote why: its reason is the run's.
  if (
    failure instanceof ComponentFailedError &&
    failure.failed.component === 'simulator container' &&
    failure.failed.exit_status === 1 &&
    written?.status === 'failed'
  )
    return undefined;
  return failure;
}

/** run.mcap of a run that started, from the files the simulator wrote; a problem is a warning. */
async function recordMcap(session: RunSession, timeBaseNs: bigint | undefined, phases: RunPhases, opts: EmulatedRunOptions): Promise<void> {
  if (phases.ms.started === undefined) return;
  const problem = await recordRunMcap(session.folder, session.scenario, {
    runtime: 'docker',
    grid: await loadScenarioMap(session.scenario).catch(() => undefined),
    timeBaseNs,
    byDefault: opts.mcapByDefault ?? true,
  });
  if (problem) opts.events?.emit({ type: 'log', level: 'warn', message: problem });
}

/**
 * The simulator ended the run on a SIGTERM the host did not send: `docker stop`, or the Docker
 * engine stopping its containers as it shuts down or restarts.
 */
function stoppedFromOutside(reason: string | undefined, engineWentAway: boolean): ComponentFailedError {
  return new ComponentFailedError(
    {
      component: 'simulator container',
      exit_status: null,
      signal: null,
      how: engineWentAway ? 'was stopped by the Docker engine, which went away' : 'was stopped from outside cavsim',
      last_log_lines: reason ? [reason] : [],
    },
    'during the run',
    engineWentAway
      ? 'the Docker engine stopped or restarted during the run'
      : 'was it stopped with `docker stop`, or the Docker engine restarted?',
  );
}

/**
 * ns-3 runs in real time and may fall behind the wall clock (a stalled or starved process); every
 * frame in flight is then delivered that much later than the channel model says. Normal runs stay
 * under a millisecond.
 */
export const NS3_LAG_LIMIT_MS = 50;

export function channelLagProblem(lagMs: readonly number[]): string | undefined {
  const worst = Math.max(0, ...lagMs);
  if (worst <= NS3_LAG_LIMIT_MS) return undefined;
  return `the ns-3 channel fell ${worst.toFixed(0)} ms behind real time (timing.ns3_lag_max_ms; allowed ${NS3_LAG_LIMIT_MS} ms): messages in flight were delivered that much later than the channel's model`;
}

function deviceLinks(scenario: ResolvedScenario): DeviceLink[] {
  return scenario.vehicles.flatMap((v) => (v.external?.v2v ? [{ vehicle: v.name, interface: v.external.v2v.interface }] : []));
}

/** The most the modelled medium carries [bit/s]: the PHY rate on 802.11p, the data rate on wired channels. */
function channelRate(scenario: ResolvedScenario): number {
  const n = scenario.network;
  if (isWifi(n)) return n.rate;
  if (isRadio(n)) throw new UserInputError(noNs3Program(n.channel));
  return n.dataRate;
}

function channelTiming(lagMs: number[], phases: Record<string, number>): Record<string, unknown> {
  const sorted = [...lagMs].sort((a, b) => a - b);
  return {
    ns3_lag_p50_ms: percentileOfSorted(sorted, 50) ?? null,
    ns3_lag_p99_ms: percentileOfSorted(sorted, 99) ?? null,
    ns3_lag_max_ms: sorted.at(-1) ?? null,
    phases_ms: phases,
  };
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

function describeKept(plan: EmulatedRunPlan, ns3Pid: number | undefined): KeptRun {
  return {
    runId: plan.runId,
    containers: [
      { name: plan.simulator.name, controlIp: plan.simulator.ip },
      ...plan.vehicles.map((v) => ({ name: v.name, vehicle: v.vehicle, controlIp: v.ip, v2vIp: v.v2vIp })),
    ],
    ns3Pid,
    teardown: `cavsim teardown --run ${plan.runId}`,
  };
}
