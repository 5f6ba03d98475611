import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse as parseYaml } from 'yaml';
import { builtinChannelScript } from '../../channel/ns3/compile.js';
import { writeObstacleGrid } from '../../channel/ns3/lockstep/obstacle-grid-file.js';
import type { StartedChannel } from '../../channel/ns3/realtime-channel.js';
import { loadMapFromDisk } from '../../core/map/map-loader.js';
import { CavsimError, ExternalProcessError } from '../../errors.js';
import type { ContainerSpec } from '../../host/docker/docker-port.js';
import { CAVSIM_IMAGES } from '../../host/docker/images.js';
import { createJournaledDocker, dockerUndoers } from '../../host/docker/journaled.js';
import { type ProcessIdentity, processUndoers, readStartTime } from '../../host/exec/process-identity.js';
import type { Undoer } from '../../host/journal/journal.js';
import { assertPlannedLinksFree, setUpHostNetwork } from '../../host/network/set-up.js';
import { hostNetUndoers } from '../../host/network/undoers.js';
import { CONTROL_PORT } from '../../ports.js';
import { markRunKept, openRunJournal, registerActiveRun, takeForcedTeardown, unregisterActiveRun } from '../../run/active-runs.js';
import type { RunEvents } from '../../run/events.js';
import { RunInterrupted } from '../../run/finish-run.js';
import { recordRunMcap } from '../../run/mcap/record-run-mcap.js';
import { ComponentFailedError } from '../../run/outcome.js';
import { RUN_FILES } from '../../run/run-files.js';
import { type RunOptions, RunSession } from '../../run/run-session.js';
import type { RunSummary } from '../../run/summary.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { inParallel } from '../../util/in-parallel.js';
import { lastLines } from '../../util/last-lines.js';
import { percentileOfSorted } from '../../util/percentile.js';
import { writeFileNoFollow } from '../../util/write-no-follow.js';
import type { SimulatorStatus } from '../rosbridge/control-topics.js';
import { ComponentWatch, containerDeath, type Death, signalOfExitStatus } from './component-watch.js';
import { type DeviceLink, DeviceLinkLoadWatch, deviceLoadWarnings } from './device-link-load.js';
import { type DeviceRelay, startDeviceRelay } from './device-relay.js';
import type { ControlLink, EmulatedRunDeps } from './emulated-deps.js';
import { BUILTIN_CHANNEL, type EmulatedRunPlan, planEmulatedRun, withContainerPids } from './plan-emulated.js';
import { relayPositions } from './position-relay.js';

export interface EmulatedRunOptions extends RunOptions {
  /** Leave containers, links, rules and ns-3 running after the scenario (undo later with `cavsim teardown`). */
  keep?: boolean;
  /** How long a failed set-up step waits for a component's death to name the cause (default 800 ms). */
  failureSettleMs?: number;
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

export function allUndoers(deps: Pick<EmulatedRunDeps, 'docker' | 'hostNet'>): Record<string, Undoer> {
  return { ...dockerUndoers(deps.docker), ...hostNetUndoers(deps.hostNet), ...processUndoers };
}

const stopReason = (opts: EmulatedRunOptions) => opts.stopReason?.() ?? 'stopped by the user';

/** How long the simulator gets to write its summary after the host asked it to stop. */
const SIMULATOR_STOP_WAIT_MS = 10_000;
/** How often the Docker engine is asked whether it is there while the run goes. */
const ENGINE_CHECK_MS = 1000;
/** Containers created and started at once: Docker's create and start each wait on the engine, not on this process. */
const CONTAINER_STARTS_AT_ONCE = 4;
/** A vehicle may exit this long before the host hears that the run is stopping. */
const VEHICLE_EXIT_GRACE_MS = 300;
/** The control link closing is blamed on the link only if no container death explains it by then. */
const CONTROL_LINK_GRACE_MS = 1000;

/**
 * `cavsim up --runtime docker`: images, control network, simulator and vehicle containers, per-vehicle
 * bridge/tap/veth plumbing and rules, the ns-3 channel, then the experiment in real time. Every host
 * resource is journaled before it exists. Every component is watched for the whole run: the first
 * to die ends it as `failed`, named. Any end (but a kept, healthy one) replays the journal backwards.
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

async function runInSession(session: RunSession, deps: EmulatedRunDeps, opts: EmulatedRunOptions): Promise<EmulatedRunOutcome> {
  const { folder, scenario } = session;
  const t0 = performance.now();
  const startedAtMs = Date.now();
  const phases: Record<string, number> = {};
  const mark = (name: string) => (phases[name] = Math.round(performance.now() - t0));
  const emit = (phase: string, detail?: string) => opts.events?.emit({ type: 'phase', phase, detail });

  copyMap(scenario.mapFile, join(folder.dir, 'map'));
  const plan = planEmulatedRun(scenario, folder.runId, folder.dir, { keep: opts.keep });
  writeFileNoFollow(folder.file(RUN_FILES.plan), `${JSON.stringify(plan, null, 2)}\n`);
  const journal = openRunJournal({ runId: folder.runId, journal: folder.file(RUN_FILES.journal) });
  const watch = new ComponentWatch(opts.failureSettleMs);
  const checkStop = () => {
    if (opts.shouldStop?.()) throw new RunInterrupted(`${stopReason(opts)} before the run started`);
  };

  let failure: unknown;
  let registered = false;
  let channel: StartedChannel | undefined;
  let control: ControlLink | undefined;
  let timeBaseNs: bigint | undefined;
  let stopRelay: (() => void) | undefined;
  const deviceRelays: DeviceRelay[] = [];
  let engineCheck: NodeJS.Timeout | undefined;
  const deviceLoad = new DeviceLinkLoadWatch(deviceLinks(scenario), deps.linkBytes ?? (() => undefined));
  let simulator: { ended: Promise<void>; gone: Promise<unknown> } | undefined;
  try {
    emit('images', 'checking the simulator and vehicle images');
    await deps.prepareImages((line) => emit('images', line));
    await session.recordImages(
      await imageIds(deps.docker, [
        CAVSIM_IMAGES.simulator,
        CAVSIM_IMAGES.vehicle,
        ...scenario.vehicles.flatMap((v) => (v.image ? [v.image] : [])),
      ]),
    );
    mark('images');
    checkStop();

    emit('channel', 'compiling the ns-3 channel program (cached)');
    const source = plan.channel.script === BUILTIN_CHANNEL ? builtinChannelScript() : plan.channel.script;
    const binary = await deps.channel.compile(source);
    mark('compiled');
    checkStop();

    emit(
      'containers',
      `simulator and ${plan.vehicles.length} vehicles${plan.v2vRelays.length ? ` (${plan.v2vRelays.length} with a V2V relay)` : ''}`,
    );
    // A name of the host's that the plan needs (a user's link) refuses the run before it creates anything.
    await assertPlannedLinksFree(plan.hostNet, deps.hostNet, journal);
    // Indexed right before its first host resource: a run refused earlier leaves no entry behind.
    registerActiveRun(plan.runId, journal.path);
    registered = true;
    const docker = createJournaledDocker(deps.docker, journal, plan.runId);
    await docker.createContainer(plan.simulator);
    await deps.docker.startContainer(plan.simulator.name);
    const simulatorInfo = await deps.docker.inspectContainer(plan.simulator.name);
    simulator = watchSimulator(deps, plan, watch, simulatorInfo?.pid ? identify(simulatorInfo.pid) : undefined);
    if (!simulatorInfo?.pid) throw await notRunning(deps, plan.simulator.name, 'simulator container', simulatorInfo?.exitCode);
    const pids: Record<string, number> = {};
    const startWatched = async (spec: ContainerSpec, component: string) => {
      await docker.createContainer(spec);
      await deps.docker.startContainer(spec.name);
      const info = await watch.guard(deps.docker.inspectContainer(spec.name));
      const process = info?.pid ? identify(info.pid) : undefined;
      watch.watch(component, containerDeath(deps.docker, spec.name, watch.signal, { process, onEngineLost: watch.engineLost }), {
        graceMs: VEHICLE_EXIT_GRACE_MS,
      });
      if (!info?.pid) throw await notRunning(deps, spec.name, component, info?.exitCode);
      return info.pid;
    };
    const firstWave = [
      ...plan.vehicles.filter((v) => !v.shareNetworkOf).map((spec) => ({ spec, component: `vehicle ${spec.vehicle} container` })),
      ...plan.v2vRelays.map((spec) => ({ spec, component: `vehicle ${spec.vehicle} V2V relay container` })),
    ];
    await inParallel(firstWave, CONTAINER_STARTS_AT_ONCE, async ({ spec, component }) => {
      pids[spec.vehicle] = await startWatched(spec, component);
    });
    mark('containers');

    emit('network', `bridges, taps, veths and rules for ${plan.vehicles.length} vehicles`);
    await watch.guard(
      setUpHostNetwork(withContainerPids(plan.hostNet, { vehicles: pids, simulator: simulatorInfo.pid }), { journal, ops: deps.hostNet }),
    );
    // Code that is not cavsim's starts only now, inside a namespace whose rules already hold.
    await inParallel(
      plan.vehicles.filter((v) => v.shareNetworkOf),
      CONTAINER_STARTS_AT_ONCE,
      (v) => startWatched(v, `vehicle ${v.vehicle} container`),
    );
    mark('network');
    checkStop();

    if (plan.channel.obstacleFile) writeObstacleGrid(await loadMapFromDisk(scenario.mapFile), plan.channel.obstacleFile);
    emit('channel', `ns-3 ${basename(source)} ${plan.channel.args.join(' ')}`);
    const started = await watch
      .guard(deps.channel.start({ binary, args: plan.channel.args, logPath: folder.file(RUN_FILES.ns3Log), journal }))
      .catch((err: unknown) => {
        throw err instanceof ExternalProcessError
          ? new ComponentFailedError(
              { component: 'ns-3 channel', exit_status: err.exitCode ?? null, signal: null, last_log_lines: lastLines(err.stderrTail) },
              'while starting',
              `see ${folder.file(RUN_FILES.ns3Log)}`,
            )
          : err;
      });
    channel = started;
    watch.watch(
      'ns-3 channel',
      started.exited.then((e): Death => ({ exit_status: e.code, signal: e.signal, last_log_lines: started.lastLogLines() })),
    );
    mark('channel');

    emit('connecting', `simulator at ${plan.simulator.controlUrl}`);
    control = await watch.guard(deps.connectControl(plan.simulator.controlUrl, 30_000));
    const link = control;
    link.onStatus((s) => {
      if (s.phase === 'stopping' || s.phase === 'stopped') watch.runEnding();
    });
    watch.watch(
      'control link',
      link.closed.then((): Death => ({ exit_status: null, signal: null, last_log_lines: [] })),
      { graceMs: CONTROL_LINK_GRACE_MS },
    );
    const positionsPort = started.positionsPort();
    if (positionsPort !== undefined)
      stopRelay = relayPositions(
        link,
        plan.hostNet.vehicles.map((v) => v.name),
        positionsPort,
      );
    const devicesReady: Promise<void>[] = [];
    for (const device of plan.externals) {
      const relay = await startDeviceRelay(device, { host: plan.simulator.ip, port: CONTROL_PORT }, (line) =>
        opts.events?.emit({ type: 'log', level: 'info', message: line }),
      );
      deviceRelays.push(relay);
      emit(
        'devices',
        `waiting up to ${device.connectTimeout} s for ${device.vehicle}'s device (${device.from}) at ${relay.url}${device.v2vIp ? `; its V2V address is ${device.v2vIp}/24` : ''}`,
      );
      devicesReady.push(
        link.waitForVehicles([device.vehicle], device.connectTimeout * 1000).catch(() => {
          throw new CavsimError(
            'RUN_FAILED',
            `${device.vehicle}'s external device (${device.from}) did not connect to ${relay.url} and say ready within ${device.connectTimeout} s`,
            `start the device's program with --url ${relay.url} --vehicle ${device.vehicle}; check that it reaches ${device.listen.host} (docs/external-devices.md)`,
          );
        }),
      );
    }
    await watch.guard(
      Promise.all([
        link.waitForVehicles(
          plan.vehicles.map((v) => v.vehicle),
          30_000,
        ),
        ...devicesReady,
      ]),
    );
    checkStop();
    link.onStatus(progressReporter(scenario, opts.events));
    timeBaseNs = (await link.start()) ?? undefined;
    mark('started');
    deviceLoad.start();

    emit('running', `${scenario.duration} s in real time`);
    engineCheck = setInterval(
      () => void deps.docker.ping().catch((err: unknown) => watch.engineLost(err instanceof Error ? err.message : String(err))),
      ENGINE_CHECK_MS,
    );
    // Asked to stop (Ctrl-C, a signal), the simulator has SIMULATOR_STOP_WAIT_MS to end the run.
    let stopTimer: NodeJS.Timeout | undefined;
    let stopDeadline: NodeJS.Timeout | undefined;
    const unanswered = new Promise<never>((_, reject) => {
      stopTimer = setInterval(() => {
        if (!opts.shouldStop?.()) return;
        clearInterval(stopTimer);
        void link.stop(stopReason(opts)).catch(() => {});
        stopDeadline = setTimeout(
          () =>
            reject(
              new Error(`the simulator did not stop within ${SIMULATOR_STOP_WAIT_MS / 1000} s of being asked to (${stopReason(opts)})`),
            ),
          SIMULATOR_STOP_WAIT_MS,
        );
      }, 100);
    });
    try {
      // With --keep the simulator stays up after the scenario: its `stopped` status ends the wait.
      const stopped = new Promise<void>((r) => link.onStatus((s) => s.phase === 'stopped' && r()));
      await watch.guard(Promise.race([simulator.ended, stopped, unanswered]));
    } finally {
      clearInterval(stopTimer);
      clearTimeout(stopDeadline);
    }
    mark('finished');
  } catch (err) {
    failure = err;
    // Whatever ended the run early, the simulator (if alive) writes what it measured.
    if (control && simulator) {
      await control.stop(err instanceof Error ? err.message : String(err)).catch(() => {});
      await Promise.race([simulator.gone, new Promise((r) => setTimeout(r, SIMULATOR_STOP_WAIT_MS))]);
    }
  } finally {
    clearInterval(engineCheck);
    watch.close();
    stopRelay?.();
    for (const relay of deviceRelays) relay.close();
    await control?.close().catch(() => {});
  }

  const written = session.folder.readSummary();
  if (failure === undefined && !opts.shouldStop?.() && written?.status === 'interrupted')
    failure = stoppedFromOutside(written.reason, watch.engineProblem(startedAtMs) !== undefined);
  const forced = registered ? takeForcedTeardown(plan.runId) : undefined;
  if (forced)
    failure = new RunInterrupted(`ended by \`cavsim teardown --force\` (pid ${forced.pid}), which undid what the run had created`);
  // A simulator that ended the run itself (its disk full, say) exits 1 and wrote why: its reason is the run's.
  if (
    failure instanceof ComponentFailedError &&
    failure.failed.component === 'simulator container' &&
    failure.failed.exit_status === 1 &&
    written?.status === 'failed'
  )
    failure = undefined;
  const mcapProblem =
    phases.started === undefined
      ? undefined
      : await recordRunMcap(folder, scenario, {
          runtime: 'docker',
          grid: await loadMapFromDisk(scenario.mapFile).catch(() => undefined),
          timeBaseNs,
          byDefault: opts.mcapByDefault ?? true,
        });
  if (mcapProblem) opts.events?.emit({ type: 'log', level: 'warn', message: mcapProblem });
  const keep = opts.keep === true && failure === undefined;
  const lag = channel?.lagSamplesMs() ?? [];
  const deviceLoads = deviceLoad.stop(channelRate(scenario));
  session.finish({
    failure,
    interrupted: opts.shouldStop?.() ? stopReason(opts) : undefined,
    invalid: [channelLagProblem(lag), watch.engineProblem(startedAtMs)].filter(Boolean).join('; ') || undefined,
    wallTime: phases.started === undefined ? 0 : (performance.now() - t0 - phases.started) / 1000,
    timing: {
      ...channelTiming(lag, phases),
      ...(timeBaseNs !== undefined ? { t0_epoch_ns: timeBaseNs.toString() } : {}),
      ...(Object.keys(deviceLoads).length ? { external_v2v: deviceLoads } : {}),
    },
    warnings: deviceLoadWarnings(deviceLoads),
  });
  await saveContainerLogs(deps, plan, folder.file('logs'));
  let kept: KeptRun | undefined;
  let leftovers: string | undefined;
  if (keep) {
    markRunKept(plan.runId);
    kept = describeKept(plan, channel);
    emit('kept', `still up; undo with: cavsim teardown --run ${plan.runId}`);
  } else if (registered) {
    emit('teardown', 'undoing everything the run created');
    const t = performance.now();
    const report = await journal.teardown(allUndoers(deps));
    phases.teardown = Math.round(performance.now() - t);
    if (!report.failed.length) unregisterActiveRun(plan.runId);
    else
      leftovers = `teardown left ${report.failed.map((f) => `${f.entry.kind} ${f.entry.id} (${f.error})`).join('; ')}; undo them with \`cavsim teardown --run ${plan.runId}\``;
  }
  const summary = await session.close();
  return { summary, runDir: folder.dir, phases, ...(kept ? { kept } : {}), ...(leftovers ? { leftovers } : {}) };
}

/**
 * `ended` resolves when the simulator container exits with 0, or with any status once it said the
 * run is stopping (the run is over); any other exit is the run's failure, reported by the watch
 * (`ended` then never settles). `gone` resolves on any exit.
 */
function watchSimulator(
  deps: EmulatedRunDeps,
  plan: EmulatedRunPlan,
  watch: ComponentWatch,
  process: ProcessIdentity | undefined,
): { ended: Promise<void>; gone: Promise<unknown> } {
  const gone = containerDeath(deps.docker, plan.simulator.name, watch.signal, { process, onEngineLost: watch.engineLost });
  watch.watch(
    'simulator container',
    gone.then((d) => (d && d.exit_status === 0 ? undefined : d)),
  );
  const ended = gone.then((d) => {
    // Once the simulator said the run is stopping, its exit ends the wait whatever its status (it
    // wrote summary.json): its last status may never arrive, its namespace gone with it.
    if (d?.exit_status !== 0 && !watch.isEnding) return new Promise<void>(() => {});
    watch.runEnding();
  });
  return { ended, gone };
}

/** A container's init process, to watch while the engine is away; none if it already ended. */
function identify(pid: number): ProcessIdentity | undefined {
  const startTime = readStartTime(pid);
  return startTime === undefined ? undefined : { pid, startTime };
}

async function notRunning(
  deps: EmulatedRunDeps,
  name: string,
  component: string,
  exitCode: number | undefined,
): Promise<ComponentFailedError> {
  const logs = await deps.docker.logs?.(name).catch(() => undefined);
  return new ComponentFailedError(
    {
      component,
      exit_status: exitCode ?? null,
      signal: exitCode === undefined ? null : signalOfExitStatus(exitCode),
      last_log_lines: lastLines(logs),
    },
    'while starting',
  );
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
  return scenario.network.channel === 'wifi-80211p' ? scenario.network.rate : scenario.network.dataRate;
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

function describeKept(plan: EmulatedRunPlan, channel: StartedChannel | undefined): KeptRun {
  return {
    runId: plan.runId,
    containers: [
      { name: plan.simulator.name, controlIp: plan.simulator.ip },
      ...plan.vehicles.map((v) => ({ name: v.name, vehicle: v.vehicle, controlIp: v.ip, v2vIp: v.v2vIp })),
    ],
    ns3Pid: channel?.identity.pid,
    teardown: `cavsim teardown --run ${plan.runId}`,
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

function progressReporter(scenario: ResolvedScenario, events: RunEvents | undefined) {
  return (status: SimulatorStatus) => {
    if (status.phase !== 'running') return;
    events?.emit({
      type: 'progress',
      t: status.t_s,
      duration: scenario.duration,
      cars: status.cars,
      minTtc: status.min_ttc_s,
      ...(status.lateness ? { lateness: status.lateness } : {}),
    });
  };
}

async function saveContainerLogs(deps: EmulatedRunDeps, plan: EmulatedRunPlan, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const c of [plan.simulator, ...plan.vehicles, ...plan.v2vRelays]) {
    try {
      const text = await deps.docker.logs?.(c.name);
      if (text !== undefined) writeFileNoFollow(join(dir, `${c.name}.log`), text);
    } catch {
      // A container that never started has no logs; the summary says why the run failed.
    }
  }
}

/** Tag to image id: what the manifest records of the images a run used. */
async function imageIds(docker: EmulatedRunDeps['docker'], tags: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const tag of new Set(tags)) {
    const id = (await docker.inspectImage(tag))?.id;
    if (id) ids[tag] = id;
  }
  return ids;
}
