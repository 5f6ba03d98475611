import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TALLY_BIN_M } from '../channel/outcome-tally.js';
import { UserInputError } from '../errors.js';
import { type BinnedOutcomes, tableOfBinned } from '../measurement/binned-outcomes.js';
import type { MeasuredCbr } from '../measurement/channel-busy-log.js';
import { CsvLog } from '../measurement/csv-log.js';
import {
  broadcastRows,
  type CbrDeviation,
  cbrDeviation,
  type DeliveryTable,
  type DistanceRow,
  deliveryTable,
  orderReasons,
  type TableDeviation,
  tableDeviation,
} from '../measurement/delivery-by-distance.js';
import { v2vRowFieldsFromText } from '../measurement/v2v-row.js';
import { readCarCbr } from '../run/cbr-file.js';
import { readDeliveryDistance } from '../run/delivery-distance-file.js';
import type { RunEvents } from '../run/events.js';
import { v2vRecording } from '../run/fleet-mode.js';
import { RUN_EXIT_STATUS } from '../run/outcome.js';
import { readRunFile } from '../run/read-run-file.js';
import { RUN_FILES } from '../run/run-files.js';
import { newRunId } from '../run/run-folder.js';
import type { RunStatus } from '../run/summary.js';
import { channelKind } from '../scenario/channel-kinds.js';
import { loadScenario } from '../scenario/load-scenario.js';
import type { ChannelEngine } from '../scenario/resolved.js';
import { readCsvRecords } from '../util/csv-records.js';
import { snakeCaseKeys } from '../util/snake-case.js';
import type { FolderSetting } from '../util/writable-folder.js';
import { writeFileNoFollow } from '../util/write-no-follow.js';
import { type RunOutcome, type RunScenarioOptions, runScenarioSimulated } from './run-simulated.js';

/** Where checks live: --checks-dir, $CAVSIM_CHECKS_DIR, or checks/ under the current directory. */
export const CHECKS_DIR: FolderSetting = { flag: '--checks-dir', env: 'CAVSIM_CHECKS_DIR', fallback: 'checks' };

/** A check folder's files besides runs/<engine>/, the two run folders. */
export const CHECK_FILES = { runs: 'runs', table: 'channel-check.csv', result: 'channel-check.json', plots: 'plots' } as const;

/** The engines compared, in the order the table shows them. */
export const CHECKED_ENGINES = ['builtin', 'ns3'] as const satisfies readonly ChannelEngine[];
/** The channel kind both engines model. */
const RADIO = 'wifi-80211p';

export interface ChannelCheckOptions {
  overrides?: readonly string[];
  binWidth?: number;
  maxDistance?: number;
  /** The folder checks are made in; the check's own is <checksDir>/<checkId>. */
  checksDir: string;
  checkId?: string;
  /** Delivery MAD and CBR difference above which the check has failed. */
  maxMad?: number;
  events?: RunEvents;
  shouldStop?: () => boolean;
  stopReason?: () => string | undefined;
  command?: readonly string[];
  /** How one engine's run is made (tests pass a fake); default: the simulated runtime, as `cavsim up --runtime sim`. */
  runSimulated?: (file: string, opts: RunScenarioOptions) => Promise<RunOutcome>;
}

export interface EngineRun {
  engine: ChannelEngine;
  runDir: string;
  status: RunStatus;
  /** Why the run did not complete, as its summary says. */
  reason?: string;
  exitStatus: number;
  /** Broadcast (frame, receiver) rows with a known fate within the table's range. */
  frames: number;
  table: DeliveryTable;
  /** The run's measured CBR (summary.json v2v.cbr); absent when its channel reported none. */
  cbr?: MeasuredCbr;
}

export interface ChannelCheckResult {
  checkId: string;
  dir: string;
  scenario: string;
  binWidth: number;
  maxDistance: number;
  runs: EngineRun[];
  /** Set when both runs ran: the deviation of the second engine's table from the first's. */
  deviation?: TableDeviation;
  cbrDeviation?: CbrDeviation | null;
  maxMad?: number;
  /** Figures over the bound, as sentences; empty when none (or no bound). */
  exceeded: string[];
  /** The status `cavsim check channel` exits with: a run's, else 1 over the bound, else 0. */
  exitStatus: number;
  files: { table: string; result: string };
}

/**
 * `cavsim check channel`: the scenario run twice in the simulated runtime, with the builtin 802.11p
 * engine and with ns-3, into a check folder (runs/builtin, runs/ns3); then delivery against
 * distance with each loss reason's share, and the CBR, side by side with their deviations.
 */
export async function checkChannel(file: string, opts: ChannelCheckOptions): Promise<ChannelCheckResult> {
  const overrides = opts.overrides ?? [];
  const scenario = await loadScenario(file, { overrides, runtime: 'sim' });
  if (!channelKind(scenario.network.channel).ns3)
    throw new UserInputError(
      `${file}: network.channel is ${scenario.network.channel}, which ns-3 has no program for: check channel compares the builtin engine with ns-3`,
      [`${scenario.network.channel} is validated against the published analytical model instead (docs/sidelink.md)`],
      `check a ${RADIO} scenario, or try --set network.channel=${RADIO} to compare the same cars on 802.11p`,
    );
  if (scenario.network.channel !== RADIO)
    throw new UserInputError(
      `${file}: network.channel is ${scenario.network.channel}; check channel compares the two engines of ${RADIO}`,
      ['the builtin and the ns-3 engine are compared on the radio channel only'],
      `set network.channel: ${RADIO} in the scenario (with its radio settings), or try --set network.channel=${RADIO}`,
    );
  const table = { binWidth: opts.binWidth, maxDistance: opts.maxDistance };
  // a fleet run's outcomes are counted in 10 m bins: bins that do not fit them are refused before anything runs
  if (v2vRecording(scenario).mode === 'fleet') countedTable({ binWidth: TALLY_BIN_M, counts: {} }, table, file);
  const checkId = opts.checkId ?? newRunId();
  const dir = join(opts.checksDir, checkId);
  const runsDir = join(dir, CHECK_FILES.runs);
  mkdirSync(runsDir, { recursive: true });
  const cars = scenario.vehicles.map((v) => v.name);
  const run = opts.runSimulated ?? runScenarioSimulated;
  const runs: EngineRun[] = [];
  for (const engine of CHECKED_ENGINES) {
    if (runs.length && (opts.shouldStop?.() || runs.at(-1)!.status === 'interrupted')) break;
    const outcome = await run(file, {
      overrides: [...overrides, `network.engine=${engine}`],
      runsDir,
      runId: engine,
      events: opts.events,
      shouldStop: opts.shouldStop,
      stopReason: opts.stopReason,
      command: opts.command,
      mcapByDefault: false,
    });
    const t = runTable(outcome.runDir, cars, table);
    runs.push({
      engine,
      runDir: outcome.runDir,
      status: outcome.summary.status,
      ...(outcome.summary.reason ? { reason: outcome.summary.reason } : {}),
      exitStatus: outcome.summary.exit_status ?? RUN_EXIT_STATUS[outcome.summary.status],
      frames: t.bins.reduce((s, b) => s + b.frames, 0),
      table: t,
      ...(outcome.summary.v2v.cbr ? { cbr: everyCar(outcome.summary.v2v.cbr, outcome.runDir) } : {}),
    });
  }
  const [a, b] = runs;
  const deviation = b && tableDeviation(a.table, b.table);
  const cbr = b && cbrDeviation(a.cbr, b.cbr);
  const exceeded = b && opts.maxMad !== undefined ? overBound(deviation!, cbr!, opts.maxMad) : [];
  const failedRun = runs.find((r) => r.exitStatus !== 0);
  const files = { table: join(dir, CHECK_FILES.table), result: join(dir, CHECK_FILES.result) };
  const result: ChannelCheckResult = {
    checkId,
    dir,
    scenario: scenario.name,
    binWidth: a.table.binWidth,
    maxDistance: a.table.maxDistance,
    runs,
    ...(b ? { deviation, cbrDeviation: cbr } : {}),
    ...(opts.maxMad !== undefined ? { maxMad: opts.maxMad } : {}),
    exceeded,
    exitStatus: failedRun?.exitStatus ?? (exceeded.length ? 1 : 0),
    files,
  };
  writeTableCsv(files.table, runs);
  writeFileNoFollow(files.result, `${JSON.stringify(snakeCaseKeys(result), null, 2)}\n`);
  return result;
}

/** The figures over `bound`: the delivery MAD (none when the runs share no bin) and the CBR means' difference. */
function overBound(d: TableDeviation, cbr: CbrDeviation | null, bound: number): string[] {
  const over: string[] = [];
  if (d.delivery === null) over.push('delivery MAD: the two runs have no distance bin in common, so the bound cannot be shown to hold');
  else if (d.delivery > bound) over.push(`delivery MAD ${d.delivery} > ${bound}`);
  if (cbr && cbr.mean > bound) over.push(`CBR mean difference ${cbr.mean} > ${bound}`);
  return over;
}

/**
 * A run's delivery table: from its v2v.csv's broadcast rows, or in a fleet run (no v2v.csv) from the
 * outcomes it counted by distance (delivery-distance.csv: every frame, in 10 m bins).
 */
function runTable(runDir: string, cars: readonly string[], bins: { binWidth?: number; maxDistance?: number }): DeliveryTable {
  const rows = readV2vRows(join(runDir, RUN_FILES.v2v));
  const counted = rows ? undefined : readDeliveryDistance(join(runDir, RUN_FILES.deliveryDistance));
  return counted ? countedTable(counted, bins, runDir) : deliveryTable(broadcastRows(rows ?? [], cars), bins);
}

function countedTable(counted: BinnedOutcomes, bins: { binWidth?: number; maxDistance?: number }, where: string): DeliveryTable {
  try {
    return tableOfBinned(counted, bins);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new UserInputError(
      `${where}: ${err.message}`,
      [`a fleet run writes no ${RUN_FILES.v2v}; ${RUN_FILES.deliveryDistance} counts its outcomes in ${counted.binWidth} m bins`],
      `give --bin and --max-distance in multiples of ${counted.binWidth} m, or set record.v2v: true in the scenario`,
    );
  }
}

function readV2vRows(path: string): DistanceRow[] | undefined {
  const text = readRunFile(path);
  if (text === undefined) return undefined;
  const [header, ...records] = readCsvRecords(text);
  const column = new Map(header.cells.map((c, i) => [c, i]));
  return records.map((r) => v2vRowFieldsFromText((name) => r.cells[column.get(name) ?? -1]));
}

/** channel-check.csv: a row per bin, each engine's frames, delivery ratio and loss shares side by side. */
function writeTableCsv(path: string, runs: readonly EngineRun[]): void {
  const reasons = orderReasons(runs.flatMap((r) => r.table.reasons));
  const columns = [
    'from_m',
    'to_m',
    ...runs.flatMap((r) => [`${r.engine}_frames`, `${r.engine}_delivery`, ...reasons.map((reason) => `${r.engine}_${reason}`)]),
  ];
  const log = new CsvLog(path, columns);
  try {
    runs[0].table.bins.forEach((bin, k) => {
      log.add([
        bin.from,
        bin.to,
        ...runs.flatMap((r) => {
          const b = r.table.bins[k];
          return [b.frames, b.delivery ?? undefined, ...reasons.map((reason) => (b.frames ? (b.losses[reason] ?? 0) : undefined))];
        }),
      ]);
    });
  } finally {
    log.close();
  }
}

/** A large fleet's summary lists its busiest cars only: the per-car comparison takes every car from cbr.csv. */
function everyCar(cbr: MeasuredCbr, runDir: string): MeasuredCbr {
  if (cbr.cars === undefined) return cbr;
  const { cars: _c, car_means: _m, per_car_listed: _l, ...rest } = cbr;
  return { ...rest, per_car: readCarCbr(join(runDir, RUN_FILES.cbr)) ?? cbr.per_car };
}
