import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chooseEngine } from '../../channel/ns3/engine-choice.js';
import { LockstepProcessPool } from '../../channel/ns3/lockstep/process-pool.js';
import type { MapLoader } from '../../core/map/map-loader.js';
import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import { DEFAULT_GEO_REFERENCE } from '../../core/v2x/networking/geo-reference.js';
import type { DockerPort } from '../../host/docker/docker-port.js';
import { ComputeLog } from '../../measurement/compute-log.js';
import { platoonLinks } from '../../measurement/platoon.js';
import { type FlushPolicy, Recorder } from '../../measurement/recorder.js';
import { RefusalLog } from '../../measurement/refusal-log.js';
import { ScanLog } from '../../measurement/scan-log.js';
import { V2VCapture } from '../../measurement/v2v-capture.js';
import { writeDeliveryDistance } from '../../run/delivery-distance-file.js';
import { fleetNotice, v2vRecording } from '../../run/fleet-mode.js';
import { FleetV2v } from '../../run/fleet-v2v.js';
import { openSimRecording, recordsMcap } from '../../run/mcap/record-run-mcap.js';
import { RUN_FILES, recorderFiles } from '../../run/run-files.js';
import { type RunOptions, RunSession } from '../../run/run-session.js';
import type { RunSummary } from '../../run/summary.js';
import { writeV2xFiles } from '../../run/v2x-files.js';
import { refuseUnsupportedExternal } from '../../scenario/external-device.js';
import type { ScenarioInputs } from '../../scenario/input-cache.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { loadScenarioMap } from '../../scenario/scenario-map.js';
import { openExternalDevices } from './external-vehicle.js';
import { prepareChannel } from './open-channel.js';
import { type DockerSource, openOwnCodeSession, preflightOwnCode } from './own-code/own-code-session.js';
import { runSimulated, type SimulatedRunResult } from './run-simulated.js';

/**
 * Writes at least 10 simulated steps and 20 ms of wall time apart: a crash loses at most the rows of
 * the larger of the two. A short run is hundreds of times faster than real time, and a write per
 * 10 steps was a sixth of a sweep's busy time in write calls.
 */
const SIM_FLUSH: FlushPolicy = { everySteps: 10, atLeastMsApart: 20 };

export interface SimulatedRunOptions extends RunOptions {
  /** Default: read and decode from disk each time; a sweep passes a caching loader. */
  loadMap?: MapLoader;
  /** How loading the scenario reads its map and CSV files (a sweep shares one cache across its runs). */
  inputs?: ScenarioInputs;
  /** The Docker engine for vehicles with an `image:` (asked only when one has). */
  docker?: DockerSource;
  /** Keep to real time, for a live viewer (results are the same, only slower). */
  realTime?: boolean;
  /**
   * Serving ns-3 processes for lock-step channels, owned by the caller (a sweep worker keeps one
   * for all its runs). Without one, the run makes its own and closes it when it ends.
   */
  lockstepPool?: LockstepProcessPool;
}

export interface RunOutcome {
  summary: RunSummary;
  runDir: string;
}

/** A resolved scenario in virtual time: checks, the run folder, the step loop, the summary. */
export async function simulateScenario(resolved: ResolvedScenario, opts: SimulatedRunOptions = {}): Promise<RunOutcome> {
  refuseUnsupportedExternal(resolved, 'sim');
  // The engine that runs is part of what was measured: summary.json's parameters name it.
  const scenario: ResolvedScenario = { ...resolved, network: { ...resolved.network, engine: await chooseEngine(resolved.network) } };
  const docker = await preflightOwnCode(scenario, opts.docker);
  const ownPool = opts.lockstepPool ? undefined : new LockstepProcessPool();
  const lockstepPool = opts.lockstepPool ?? ownPool!;
  let session: RunSession;
  try {
    await prepareChannel(scenario, scenario.network.engine ?? 'builtin', lockstepPool);
    const grid = await loadScenarioMap(scenario, opts.loadMap);
    session = await RunSession.open('sim', scenario, opts, await ownCodeImages(scenario, docker));
    await runInSession(session, scenario, grid, docker, lockstepPool, opts);
  } catch (err) {
    await ownPool?.close();
    throw err;
  }
  const summary = await session.close();
  // The summary is written: now let the run's own ns-3 exit, so the command leaves none behind.
  await ownPool?.close();
  return { summary, runDir: session.folder.dir };
}

async function runInSession(
  session: RunSession,
  scenario: ResolvedScenario,
  grid: OccupancyGrid,
  docker: DockerPort | undefined,
  lockstepPool: LockstepProcessPool,
  opts: SimulatedRunOptions,
): Promise<void> {
  try {
    const { folder } = session;
    opts.events?.emit({ type: 'phase', phase: 'running', detail: `simulated runtime, run ${folder.runId}` });
    const v2v = v2vRecording(scenario);
    // fleets count V2V outcomes instead of recording them per frame and receiver, and leave run.mcap out unless asked
    const fleet = v2v.mode === 'fleet' ? new FleetV2v(v2v.reason) : undefined;
    const mcap = recordsMcap(scenario, !fleet && (opts.mcapByDefault ?? true));
    if (v2v.mode === 'fleet') opts.events?.emit({ type: 'log', level: 'info', message: fleetNotice(v2v, mcap) });
    const recorder = new Recorder(
      recorderFiles(folder.dir),
      scenario.vehicles.map((v) => v.name),
      SIM_FLUSH,
      scenario.vehicles.map((v) => v.params),
      platoonLinks(scenario),
      { fleet: fleet !== undefined },
    );
    session.defer('vehicles.csv and the other logs', () => recorder.close());
    const computeLog = computeLogFor(scenario, folder.dir);
    if (computeLog) session.defer(RUN_FILES.compute, () => computeLog.close());
    const capture = fleet ? undefined : new V2VCapture(folder.file(RUN_FILES.pcap), scenario.geoReference ?? DEFAULT_GEO_REFERENCE);
    if (capture) session.defer(RUN_FILES.pcap, () => capture.close());
    const scanLog = scenario.record?.scans ? new ScanLog(folder.file(RUN_FILES.scans)) : undefined;
    if (scanLog) session.defer(RUN_FILES.scans, () => scanLog.close());
    const recording = mcap ? await openSimRecording(folder, scenario, grid) : undefined;
    if (recording) {
      session.defer(RUN_FILES.mcap, () => recording.close());
      recorder.attachRecording(recording);
      if (scanLog) scanLog.onRow = (cells) => recording.row('scans', cells);
    }
    const ownCode = openOwnCodeSession(scenario, folder, docker);
    const devices = openExternalDevices(scenario, resolve(folder.dir), (message) =>
      opts.events?.emit({ type: 'log', level: 'info', message }),
    );
    session.defer('own code', async () => {
      const left = await ownCode.close();
      if (left) opts.events?.emit({ type: 'log', level: 'warn', message: left });
    });
    const refusals = refusalLogOf(recorder, folder.dir);
    const started = performance.now();
    let failure: unknown;
    let result: SimulatedRunResult = { simTime: 0, steps: 0, interrupted: false };
    try {
      result = await runSimulated(scenario, grid, recorder, {
        events: opts.events,
        shouldStop: opts.shouldStop,
        ownCode: (spec, now) => {
          const external = spec.external;
          return external ? devices.open({ ...spec, external }, now) : ownCode.start(spec, now);
        },
        realTime: opts.realTime,
        lockstepPool,
        ...(capture ? { capture } : {}),
        ...(fleet ? { fleet } : {}),
        ...(computeLog ? { computeLog } : {}),
        ...(scanLog ? { scanLog } : {}),
        refusals,
      });
      failure = result.failure;
    } catch (err) {
      failure = err;
    }
    await session.releaseResources();
    writeV2xFiles(folder.dir, recorder, scenario, result.simTime);
    if (fleet) writeDeliveryDistance(folder.file(RUN_FILES.deliveryDistance), fleet.tally);
    else if (!recorder.v2vByDistance.empty) writeDeliveryDistance(folder.file(RUN_FILES.deliveryDistance), recorder.v2vByDistance);
    session.finish({
      measured: {
        recorder,
        simTime: result.simTime,
        steps: result.steps,
        wallTime: (performance.now() - started) / 1000,
        ...timingOf(computeLog, devices.figures()),
        ...(fleet ? { fleet } : {}),
      },
      failure,
      invalid: refusals.invalid(),
      refusals: refusals.figures(),
      interrupted: result.interrupted
        ? `stopped at t=${result.simTime.toFixed(2)} s before the scenario's ${scenario.duration} s`
        : undefined,
    });
  } catch (err) {
    await session.close(err);
    throw err;
  }
}

/** Refusals as events and, for the first ones, lines of the car's `logs/<car>.log`. */
function refusalLogOf(recorder: Recorder, dir: string): RefusalLog {
  const logs = join(dir, 'logs');
  return new RefusalLog(
    (t, car, event, detail) => recorder.recordEvent(t, car, event, detail),
    (car, line) => {
      try {
        mkdirSync(logs, { recursive: true });
        appendFileSync(join(logs, `${car}.log`), `${line}\n`);
      } catch {
        // the log is a help, never a reason to fail the run
      }
    },
  );
}

/** Tag to image id of the own-code images a simulated run starts. */
async function ownCodeImages(scenario: ResolvedScenario, docker: DockerPort | undefined): Promise<Record<string, string>> {
  const tags = [...new Set(scenario.vehicles.flatMap((v) => (v.image ? [v.image] : [])))];
  if (!docker || !tags.length) return {};
  const found = await Promise.all(tags.map(async (tag) => [tag, (await docker.inspectImage(tag))?.id] as const));
  return Object.fromEntries(found.filter((f): f is readonly [string, string] => f[1] !== undefined));
}

/** `timing` of a simulated run's summary: compute costs per car, and each external device's link figures. */
function timingOf(computeLog: ComputeLog | undefined, external: Record<string, unknown> | undefined): { timing?: Record<string, unknown> } {
  const timing = { ...(computeLog ? { compute: computeLog.summary() } : {}), ...(external ? { external } : {}) };
  return Object.keys(timing).length ? { timing } : {};
}

/** compute.csv, for runs where a car runs its own code (or an external device) or has a compute model. */
function computeLogFor(scenario: ResolvedScenario, dir: string): ComputeLog | undefined {
  const logged = scenario.vehicles.filter((v) => v.command || v.external || v.compute.model !== 'none');
  return logged.length ? new ComputeLog(join(dir, RUN_FILES.compute), new Map(logged.map((v) => [v.name, v.compute.model]))) : undefined;
}
