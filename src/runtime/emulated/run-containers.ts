import type { ContainerSpec } from '../../host/docker/docker-port.js';
import { type ProcessIdentity, readStartTime } from '../../host/exec/process-identity.js';
import { setUpHostNetwork } from '../../host/network/set-up.js';
import { ComponentFailedError } from '../../run/outcome.js';
import { inParallel } from '../../util/in-parallel.js';
import { lastLines } from '../../util/last-lines.js';
import { type ComponentWatch, containerDeath, signalOfExitStatus } from './component-watch.js';
import type { EmulatedRunDeps } from './emulated-deps.js';
import type { HostSide } from './host-side.js';
import { LIGHT_CAR_PROGRAM } from './light-car.js';
import { type EmulatedRunPlan, withContainerPids } from './plan-emulated.js';
import type { RemoteCars } from './remote-cars.js';
import type { RunPhases } from './run-phases.js';

/** Containers created and started at once: Docker's create and start each wait on the engine, not on this process. */
const CONTAINER_STARTS_AT_ONCE = 4;
/** A vehicle may exit this long before the host hears that the run is stopping. */
const VEHICLE_EXIT_GRACE_MS = 300;

/** The simulator container as the run waits on it. */
export interface WatchedSimulator {
  /** Resolves when the run is over (see `watchSimulator`); never settles on a failure, which the watch reports. */
  ended: Promise<void>;
  /** Resolves on any exit. */
  gone: Promise<unknown>;
}

/**
 * The run's containers and the host network between them, each journaled by the host side before
 * it exists and watched from its start: the simulator, the vehicles (and V2V relays) that own a
 * network namespace, the bridges, taps, veths and rules, and only then the vehicles that share
 * another's namespace (code that is not cavsim's starts inside a namespace whose rules hold).
 */
export async function startContainers(
  host: HostSide,
  deps: EmulatedRunDeps,
  plan: EmulatedRunPlan,
  watch: ComponentWatch,
  phases: RunPhases,
  emit: (phase: string, detail?: string) => void,
  remote?: RemoteCars,
): Promise<WatchedSimulator> {
  const light = plan.vehicles.filter((v) => v.cmd?.[0] === LIGHT_CAR_PROGRAM).length;
  emit(
    'containers',
    `simulator and ${plan.vehicles.length} vehicles${plan.v2vRelays.length ? ` (${plan.v2vRelays.length} with a V2V relay)` : ''}${light ? `, ${light} on the light-car program` : ''}`,
  );
  await host.claim();
  remote?.recordHosts(host.journal);
  await host.docker.createContainer(plan.simulator);
  await deps.docker.startContainer(plan.simulator.name);
  const simulatorInfo = await deps.docker.inspectContainer(plan.simulator.name);
  const simulator = watchSimulator(deps, plan, watch, simulatorInfo?.pid ? identify(simulatorInfo.pid) : undefined);
  if (!simulatorInfo?.pid) throw await notRunning(deps, plan.simulator.name, 'simulator container', simulatorInfo?.exitCode);
  const pids: Record<string, number> = {};
  const startWatched = async (spec: ContainerSpec & { host?: string; copyIn?: string[] }, component: string) => {
    await host.docker.createContainer(spec);
    if (spec.copyIn) await remote?.copyRunFiles(spec as EmulatedRunPlan['vehicles'][number]);
    await deps.docker.startContainer(spec.name);
    const info = await watch.guard(deps.docker.inspectContainer(spec.name));
    // a remote car's pid is its host's: only its engine watches it
    const process = info?.pid && !spec.host ? identify(info.pid) : undefined;
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
  phases.mark('containers');

  emit('network', `bridges, taps, veths and rules for ${plan.vehicles.length} vehicles`);
  await watch.guard(
    setUpHostNetwork(withContainerPids(plan.hostNet, { vehicles: pids, simulator: simulatorInfo.pid }), {
      journal: host.journal,
      ops: deps.hostNet,
    }),
  );
  if (remote) {
    remote.watchHosts(watch);
    emit(
      'network',
      `tunnels, control links and rules for the cars on ${new Set(plan.vehicles.flatMap((v) => v.host ?? [])).size} other hosts`,
    );
    await watch.guard(remote.plumb(host.journal, deps.runner));
    phases.mark('remote');
  }
  // Code that is not cavsim's starts only now, inside a namespace whose rules already hold.
  await inParallel(
    plan.vehicles.filter((v) => v.shareNetworkOf),
    CONTAINER_STARTS_AT_ONCE,
    (v) => startWatched(v, `vehicle ${v.vehicle} container`),
  );
  phases.mark('network');
  return simulator;
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
): WatchedSimulator {
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
