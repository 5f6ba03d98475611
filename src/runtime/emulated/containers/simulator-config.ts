import type { RunSummary } from '../../../run/summary.js';
import type { CollectGarbage } from './idle-collector.js';
import type { HostPort } from './process-env.js';
import type { WallClock } from './wall-clock.js';

export interface SimulatorProcessConfig {
  runDir: string;
  runId: string;
  /** Default: `<runDir>/map/<basename of scenario.mapFile>`. */
  mapFile?: string;
  bind: HostPort;
  /** Client addresses and who they are (see bridge/client-policy.ts); without it any client may do anything. */
  clients?: Record<string, string>;
  /** The V2V relays' `address:port` (see client-policy.ts). */
  v2vRelays?: readonly string[];
  clock: WallClock;
  /** After `stop`, reports still arriving on /cavsim/* are recorded for this long [ms]. */
  stopGraceMs?: number;
  /** While waiting for `start`, the initial odometry is republished this often [ms]. */
  idleOdometryPeriodMs?: number;
  /** Collects young garbage between steps (see idle-collector.ts); without it GC is left to V8. */
  collectGarbage?: CollectGarbage;
  log?: (line: string) => void;
}

export interface SimulatorOutcome {
  summary: RunSummary;
  exitCode: 0 | 1;
}
