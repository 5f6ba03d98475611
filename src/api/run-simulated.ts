import { platoonLinks } from '../measurement/platoon.js';
import { performance } from 'node:perf_hooks';
import { loadScenario } from '../scenario/load-scenario.js';
import { loadMapFromDisk, type MapLoader } from '../core/map/map-loader.js';
import { Recorder } from '../measurement/recorder.js';
import type { RunSummary } from '../run/summary.js';
import { finishRun } from '../run/finish-run.js';
import { chooseEngine } from '../channel/ns3/engine-choice.js';
import { prepareChannel } from '../runtime/sim/open-channel.js';
import { RunFolder, defaultRunsDir, recordManifest } from '../run/run-folder.js';
import { openSimRecording, recordsMcap } from '../run/mcap/record-run-mcap.js';
import { runSimulated, type SimulatedRunResult } from '../runtime/sim/run-simulated.js';
import type { RunEvents } from '../run/events.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { ComputeLog } from '../measurement/compute-log.js';
import { SCANS_FILE, ScanLog } from '../measurement/scan-log.js';
import { openOwnCodeSession, preflightOwnCode } from '../runtime/sim/own-code/own-code-session.js';
import type { DockerPort } from '../host/docker/docker-port.js';

/** 10 simulated steps between writes: a crash loses at most 0.1 s of simulated time. */
const SIM_FLUSH_EVERY_STEPS = 10;

export interface RunScenarioOptions {
  overrides?: readonly string[];
  runsDir?: string;
  runId?: string;
  events?: RunEvents;
  shouldStop?: () => boolean;
  /** Default: read and decode from disk each time; a sweep passes a caching loader. */
  loadMap?: MapLoader;
  /** The Docker engine for vehicles with an `image:`; default: the local engine. */
  docker?: DockerPort;
  /** The command line, for the manifest (the CLI passes its arguments). */
  command?: readonly string[];
  /** Keep to real time, for a live viewer (results are the same, only slower). */
  realTime?: boolean;
  /** Whether run.mcap is written when the scenario does not say (`record.mcap`); sweeps pass false. */
  mcapByDefault?: boolean;
}

export interface RunOutcome {
  summary: RunSummary;
  runDir: string;
}

/** `cavsim up --runtime sim`: validate, run in virtual time, write the run folder. */
export async function runScenarioSimulated(file: string, opts: RunScenarioOptions = {}): Promise<RunOutcome> {
  const scenario = await loadScenario(file, { overrides: opts.overrides, loadMap: opts.loadMap, runtime: 'sim' });
  return runResolvedSimulated(scenario, opts);
}

/** Tag to image id of the own-code images a simulated run starts. */
async function ownCodeImages(scenario: ResolvedScenario, docker: DockerPort | undefined): Promise<Record<string, string>> {
  const tags = [...new Set(scenario.vehicles.flatMap((v) => (v.image ? [v.image] : [])))];
  if (!docker || !tags.length) return {};
  const found = await Promise.all(tags.map(async (tag) => [tag, (await docker.inspectImage(tag))?.id] as const));
  return Object.fromEntries(found.filter((f): f is readonly [string, string] => f[1] !== undefined));
}

export async function runResolvedSimulated(resolved: ResolvedScenario, opts: RunScenarioOptions = {}): Promise<RunOutcome> {
  // The engine that runs is part of what was measured: summary.json's parameters name it.
  const scenario: ResolvedScenario = { ...resolved, network: { ...resolved.network, engine: await chooseEngine(resolved.network) } };
  const docker = await preflightOwnCode(scenario, opts.docker);
  await prepareChannel(scenario, scenario.network.engine ?? 'builtin');
  const grid = await (opts.loadMap ?? loadMapFromDisk)(scenario.mapFile);
  const folder = RunFolder.create(opts.runsDir ?? defaultRunsDir(), opts.runId);
  folder.writeScenario(scenario);
  await recordManifest(folder, { runtime: 'sim', scenario, overrides: opts.overrides, command: opts.command, images: await ownCodeImages(scenario, docker) });
  for (const warning of scenario.warnings ?? []) opts.events?.emit({ type: 'log', level: 'warn', message: warning });
  opts.events?.emit({ type: 'phase', phase: 'running', detail: `simulated runtime, run ${folder.runId}` });
  const recorder = new Recorder(folder.dir, scenario.vehicles.map((v) => v.name), SIM_FLUSH_EVERY_STEPS, scenario.vehicles.map((v) => v.params), platoonLinks(scenario));
  const computeLog = computeLogFor(scenario, folder.dir);
  const scanLog = scenario.record?.scans ? new ScanLog(folder.file(SCANS_FILE)) : undefined;
  const recording = recordsMcap(scenario, opts.mcapByDefault ?? true) ? await openSimRecording(folder, scenario, grid) : undefined;
  if (recording) {
    recorder.attachRecording(recording);
    if (scanLog) scanLog.onRow = (cells) => recording.row('scans', cells);
  }
  const ownCode = openOwnCodeSession(scenario, folder, docker);
  const started = performance.now();
  let failure: unknown;
  let result: SimulatedRunResult = { simTime: 0, steps: 0, interrupted: false };
  try {
    result = await runSimulated(scenario, grid, recorder, { events: opts.events, shouldStop: opts.shouldStop, ownCode: ownCode.start, realTime: opts.realTime, ...(computeLog ? { computeLog } : {}), ...(scanLog ? { scanLog } : {}) });
    failure = result.failure;
  } catch (err) {
    failure = err;
  } finally {
    recorder.close();
    computeLog?.close();
    scanLog?.close();
    recording?.close();
    const left = await ownCode.close();
    if (left) opts.events?.emit({ type: 'log', level: 'warn', message: left });
  }
  const summary = finishRun({
    folder,
    scenario,
    runtime: 'sim',
    measured: { recorder, simTime: result.simTime, steps: result.steps, wallTime: (performance.now() - started) / 1000, ...(computeLog ? { timing: { compute: computeLog.summary() } } : {}) },
    failure,
    interrupted: result.interrupted ? `stopped at t=${result.simTime.toFixed(2)} s before the scenario's ${scenario.duration} s` : undefined,
  });
  opts.events?.emit({ type: 'summary', summary, runDir: folder.dir });
  return { summary, runDir: folder.dir };
}

/** compute.csv, for runs where a car runs its own code or has a compute model. */
function computeLogFor(scenario: ResolvedScenario, dir: string): ComputeLog | undefined {
  const logged = scenario.vehicles.filter((v) => v.command || v.compute.model !== 'none');
  return logged.length ? new ComputeLog(dir, new Map(logged.map((v) => [v.name, v.compute.model]))) : undefined;
}
