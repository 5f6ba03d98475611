import { basename, dirname } from 'node:path';
import { loadMap } from '../../../core/map/load-map.js';
import { RunFolder } from '../../../run/run-folder.js';
import { unstartedSummary } from '../../../run/summary.js';
import { loadScenarioMap } from '../../../scenario/scenario-map.js';
import { BridgeServer } from '../../rosbridge/bridge-server.js';
import { clientPolicy } from '../../rosbridge/client-policy.js';
import { defaultMapFile, readResolvedScenario } from './process-env.js';
import type { SimulatorOutcome, SimulatorProcessConfig } from './simulator-config.js';
import { SimulatorSession } from './simulator-session.js';
import { rehearseBridge } from './warm-up/bridge-rehearsal.js';
import { optimizeAsUsual, optimizeEagerly } from './warm-up/optimizing-tier.js';

export type { SimulatorOutcome, SimulatorProcessConfig } from './simulator-config.js';

export interface RunningSimulator {
  readonly port: number;
  /** Resolves once summary.json is written and the bridge is closed. */
  readonly finished: Promise<SimulatorOutcome>;
  /** Ends the run early (SIGTERM, or `stop` on /sim_control): status `interrupted`. */
  interrupt(reason: string): void;
}

/** Loads the scenario and map, starts the rosbridge server and waits there for `start`. */
export async function startSimulatorProcess(cfg: SimulatorProcessConfig): Promise<RunningSimulator> {
  const scenario = readResolvedScenario(cfg.runDir);
  // The map file's copy in the run folder, or the traffic road the scenario generates.
  const grid = cfg.mapFile
    ? await loadMap(cfg.mapFile)
    : await loadScenarioMap(scenario, (file) => loadMap(defaultMapFile(cfg.runDir, file)));
  const observes = Object.fromEntries(scenario.vehicles.map((v) => [v.name, v.observes]));
  const bodies = new Set(scenario.vehicles.filter((v) => v.external?.role === 'body').map((v) => v.name));
  const policy = cfg.clients ? clientPolicy(cfg.clients, observes, bodies, new Set(cfg.v2vRelays ?? [])) : undefined;
  optimizeEagerly();
  // Only a warm-up: a simulator that cannot rehearse still runs, compiling in the run's first steps.
  const rehearsal = await rehearseBridge(scenario).then(
    (steps) => `rehearsed over ${steps} scratch steps`,
    (err: unknown) => `not rehearsed (${err instanceof Error ? err.message : String(err)})`,
  );
  cfg.log?.(`simulator: control link ${rehearsal}`);
  const bridge = await BridgeServer.listen({ host: cfg.bind.host, port: cfg.bind.port, log: cfg.log, policy });
  const session = new SimulatorSession(scenario, grid, bridge, cfg);
  optimizeAsUsual();
  return { port: bridge.port, finished: session.run(), interrupt: (reason) => session.interrupt(reason) };
}

/** summary.json of a simulator that could not even start: why, for the host to complete (run/summary.ts). */
export function writeStartupFailure(runDir: string, runId: string, reason: string): void {
  RunFolder.open(dirname(runDir), basename(runDir)).writeSummary(unstartedSummary(runId, reason));
}
