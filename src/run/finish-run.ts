import type { RefusalFigures } from '../measurement/refusal-log.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import type { FleetV2v } from './fleet-v2v.js';
import { type MeasuredFigures, readMeasuredSoFar } from './measured-so-far.js';
import { decideVerdict, RUN_EXIT_STATUS } from './outcome.js';
import type { RunFolder } from './run-folder.js';
import { saturationOf } from './saturation.js';
import { buildSummary, isUnstarted, type RunSummary } from './summary.js';

/** The user stopped the run (Ctrl-C) before it could start: status `interrupted`. */
export class RunInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunInterrupted';
  }
}

export interface MeasuredRun {
  recorder: MeasuredFigures;
  simTime: number;
  steps: number;
  wallTime: number;
  timing?: Record<string, unknown>;
  /** A fleet run's counted V2V outcomes (fleet-mode.ts). */
  fleet?: FleetV2v;
}

/**
 * Ends a run of either runtime: one place decides its status and reason and writes summary.json.
 * The figures come from the runtime's own recorder (`measured`), else from the summary the emulated
 * simulator wrote, else from the CSVs flushed so far (a simulator that died keeps what it measured).
 */
/** How a run ended, as its runtime saw it. */
export interface RunEnd {
  /** The runtime's own figures; without them they come from the summary the emulated simulator wrote, else from the CSVs. */
  measured?: MeasuredRun;
  failure?: unknown;
  /** Why the run was stopped early, when it was. */
  interrupted?: string;
  /** What the runtime saw that makes the run invalid, beyond the figures' own verdict. */
  invalid?: string;
  /** Wall time when the figures come from the CSVs [s]. */
  wallTime?: number;
  /** Merged into `timing`. */
  timing?: Record<string, unknown>;
  /** What the runtime measured that a reader should know, though it does not make the run invalid. */
  warnings?: string[];
  /** What the run refused from its cars' own code and devices (summary.json `refusals`). */
  refusals?: RefusalFigures;
}

export function finishRun(p: { folder: RunFolder; scenario: ResolvedScenario; runtime: RunSummary['runtime'] } & RunEnd): RunSummary {
  const found = p.measured ? undefined : p.folder.readSummary();
  // A simulator that could not start said only why: the run's figures come from its CSVs, its failure from that reason.
  const unstarted = found && isUnstarted(found) ? found : undefined;
  const written = found && !isUnstarted(found) ? found : undefined;
  if (unstarted && p.failure === undefined) p = { ...p, failure: `the simulator could not start: ${unstarted.reason}` };
  const base = p.measured
    ? summaryOf(p, p.measured.recorder, p.measured.simTime, p.measured.steps, p.measured.wallTime, p.measured.timing, p.measured.fleet)
    : (written ?? fromCsv(p));
  const userStop = p.failure instanceof RunInterrupted ? p.failure.message : undefined;
  const verdict = decideVerdict({
    failure: failureOf(p, base, written !== undefined),
    interrupted: userStop ?? (base.status === 'interrupted' ? base.reason : p.interrupted),
    invalid: [base.status === 'invalid' ? base.reason : undefined, p.invalid].filter(Boolean).join('; ') || undefined,
  });
  const saturation = saturationOf(base.v2v, p.scenario, p.runtime);
  const warnings = [
    ...new Set([...(p.scenario.warnings ?? []), ...(p.warnings ?? []), ...(saturation?.warning ? [saturation.warning] : [])]),
  ];
  const { reason: _reason, failed_component: _component, exit_status: _exit, hint: _hint, ...rest } = base;
  const summary: RunSummary = {
    ...rest,
    ...(saturation ? { v2v: { ...rest.v2v, saturated: saturation.saturated } } : {}),
    status: verdict.status,
    ...(verdict.reason ? { reason: verdict.reason } : {}),
    ...(verdict.failed_component ? { failed_component: verdict.failed_component } : {}),
    exit_status: verdict.exit_status,
    ...(verdict.hint ? { hint: verdict.hint } : {}),
    ...(warnings.length ? { warnings } : {}),
    ...(p.refusals ? { refusals: p.refusals } : {}),
    ...(p.timing || base.timing ? { timing: { ...(base.timing ?? {}), ...(p.timing ?? {}) } } : {}),
  };
  // keep `parameters` last, as buildSummary writes it
  const { parameters, ...head } = summary;
  const ordered = { ...head, parameters } as RunSummary;
  try {
    p.folder.writeSummary(ordered);
  } catch (err) {
    // The run still ends, and tears down: its verdict is said, if not kept.
    const why = `summary.json could not be written (${err instanceof Error ? err.message : String(err)})`;
    return {
      ...ordered,
      status: 'failed',
      reason: ordered.reason ? `${ordered.reason}; ${why}` : why,
      exit_status: RUN_EXIT_STATUS.failed,
    };
  }
  return ordered;
}

/** The host's failure, else one the runtime reported itself, else a simulator that left no summary. */
function failureOf(
  p: { failure?: unknown; measured?: MeasuredRun; interrupted?: string },
  base: RunSummary,
  simulatorWroteSummary: boolean,
): unknown {
  if (p.failure instanceof RunInterrupted) return undefined;
  if (p.failure !== undefined) return p.failure;
  if (base.status === 'failed') return base.reason ?? 'the simulator failed';
  if (!simulatorWroteSummary && !p.measured && !p.interrupted) return 'the simulator wrote no summary';
  return undefined;
}

function fromCsv(p: { folder: RunFolder; scenario: ResolvedScenario; runtime: RunSummary['runtime']; wallTime?: number }): RunSummary {
  const m = readMeasuredSoFar(
    p.folder.dir,
    p.scenario.vehicles.map((v) => v.name),
  );
  return summaryOf(p, m, m.simTime, Math.round(m.simTime / p.scenario.physics.timestep), p.wallTime ?? 0);
}

function summaryOf(
  p: { folder: RunFolder; scenario: ResolvedScenario; runtime: RunSummary['runtime'] },
  recorder: MeasuredFigures,
  simTime: number,
  steps: number,
  wallTime: number,
  timing?: Record<string, unknown>,
  fleet?: FleetV2v,
): RunSummary {
  return buildSummary({
    runId: p.folder.runId,
    runtime: p.runtime,
    scenario: p.scenario,
    recorder,
    simTime,
    steps,
    wallTime,
    status: 'completed',
    ...(timing ? { timing } : {}),
    ...(fleet ? { fleet } : {}),
  });
}
