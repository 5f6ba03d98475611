import { join } from 'node:path';
import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import { RUN_FILES } from '../../run/run-files.js';
import { describeNetwork } from '../../scenario/describe-network.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { describeScenarioMap, loadScenarioMap } from '../../scenario/scenario-map.js';
import { diskTailReader, FileTail, type TailReader } from '../../util/file-tail.js';
import { goalFinderFor } from './goal-points.js';
import { emptyRunData, mergeRunData, RUN_FILE_KINDS, type RunData, RunDataStore } from './run-data.js';
import { ScanIndex } from './scans.js';

/** What the page needs besides the time series: names, sizes, waypoints, the map's placement. */
export interface RunMeta {
  runId: string;
  live: boolean;
  scenario: { name: string; description?: string; duration: number; channel: string; timestep: number };
  vehicles: MetaVehicle[];
  map: { width: number; height: number; resolution: number; origin: { x: number; y: number; yaw: number } } | null;
  mapProblem?: string;
  summary: unknown | null;
}

export interface MetaVehicle {
  name: string;
  length: number;
  width: number;
  controller: string;
  /** [x, y] of each waypoint (pure pursuit only). */
  waypoints: [number, number][];
  lookahead?: number;
  loop?: boolean;
  /** The car a CACC follower follows: a platoon's charts show these neighbouring pairs. */
  follows?: string;
}

/** The run folder's files, read through narrow ports so tests can feed a folder being written. */
export interface RunSourcePorts {
  readText(path: string): Promise<string | undefined>;
  loadMap(yamlPath: string): Promise<OccupancyGrid>;
  tailReader?: TailReader;
}

/** A poll's outcome: new rows (possibly empty) and, once, the summary that marks the run's end. */
export interface PollResult {
  delta: RunData;
  summaryArrived: boolean;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * Everything the view knows about one run folder. Replay reads it once; live mode polls, and each
 * poll returns only what was appended since the last one.
 */
export class RunSource {
  scenario?: ResolvedScenario;
  grid?: OccupancyGrid;
  mapProblem?: string;
  summary: unknown | null = null;
  store?: RunDataStore;
  readonly scans = new ScanIndex();
  private tails = new Map<string, FileTail>();
  private scanTail?: FileTail;

  constructor(
    readonly runDir: string,
    readonly runId: string,
    private readonly ports: RunSourcePorts,
  ) {}

  get ready(): boolean {
    return this.scenario !== undefined;
  }

  /** Reads scenario, map and whatever rows exist. Returns false while the scenario file is missing. */
  async poll(): Promise<PollResult> {
    const delta = emptyRunData();
    if (!this.scenario && !(await this.loadScenario())) return { delta, summaryArrived: false };
    // The summary is checked before the rows: a run writes its last rows, then its summary, so rows
    // read after seeing the summary are complete.
    const summaryText = this.summary === null ? await this.ports.readText(join(this.runDir, RUN_FILES.summary)) : undefined;
    for (const kind of RUN_FILE_KINDS) {
      const tail = this.tails.get(kind)!;
      const lines = await tail.readNewLines();
      if (lines.length) mergeRunData(delta, this.store!.ingest(kind, lines));
    }
    const scanLines = await this.scanTail!.readNewLines();
    if (scanLines.length) this.scans.ingest(scanLines);
    let summaryArrived = false;
    if (summaryText !== undefined) {
      try {
        this.summary = JSON.parse(summaryText);
        summaryArrived = true;
      } catch {
        // Written by rename, so a parse error means a foreign or broken file: show the run without it.
      }
    }
    return { delta, summaryArrived };
  }

  get data(): RunData {
    return this.store?.data ?? emptyRunData();
  }

  meta(live: boolean): RunMeta | undefined {
    const s = this.scenario;
    if (!s) return undefined;
    const g = this.grid;
    return {
      runId: this.runId,
      live,
      scenario: {
        name: s.name,
        description: s.description,
        duration: s.duration,
        channel: describeNetwork(s.network),
        timestep: s.physics.timestep,
      },
      vehicles: s.vehicles.map((v) => ({
        name: v.name,
        length: v.params.length,
        width: v.params.width,
        controller: v.controller.type,
        waypoints:
          v.controller.type === 'pure-pursuit' ? v.controller.waypoints.map((w) => [round3(w.x), round3(w.y)] as [number, number]) : [],
        ...(v.controller.type === 'pure-pursuit' ? { lookahead: v.controller.lookahead, loop: v.controller.loop } : {}),
        ...followed(v.apps),
      })),
      map: g ? { width: g.width, height: g.height, resolution: g.resolution, origin: { ...g.origin } } : null,
      ...(this.mapProblem ? { mapProblem: this.mapProblem } : {}),
      summary: this.summary,
    };
  }

  private async loadScenario(): Promise<boolean> {
    const text = await this.ports.readText(join(this.runDir, RUN_FILES.scenario));
    if (text === undefined) return false;
    const scenario = JSON.parse(text) as ResolvedScenario;
    try {
      this.grid = await loadScenarioMap(scenario, this.ports.loadMap);
    } catch (err) {
      this.mapProblem = `map ${describeScenarioMap(scenario)} could not be loaded: ${err instanceof Error ? err.message : String(err)}`;
    }
    const reader = this.ports.tailReader ?? diskTailReader;
    for (const kind of RUN_FILE_KINDS) this.tails.set(kind, new FileTail(join(this.runDir, `${kind}.csv`), reader));
    this.scanTail = new FileTail(join(this.runDir, RUN_FILES.scans), reader);
    this.store = new RunDataStore(goalFinderFor(scenario));
    this.scenario = scenario;
    return true;
  }
}

function followed(apps: ResolvedScenario['vehicles'][number]['apps']): { follows?: string } {
  for (const app of apps) if (app.type === 'cacc') return { follows: app.predecessor };
  return {};
}
