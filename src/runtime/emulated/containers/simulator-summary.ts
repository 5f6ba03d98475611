import { basename, dirname } from 'node:path';
import { decideVerdict } from '../../../run/outcome.js';
import { RunFolder } from '../../../run/run-folder.js';
import { buildSummary, type RunSummary } from '../../../run/summary.js';
import { type ResolvedScenario, type ResolvedVehicle, runsOwnCode } from '../../../scenario/resolved.js';
import { stepSchedule } from '../../../world/step-schedule.js';
import type { World } from '../../../world/world.js';
import type { BodyLink } from './body-link.js';
import type { SimulatorLogs } from './simulator-logs.js';
import type { SimulatorReports } from './simulator-reports.js';
import type { StepTiming } from './step-timing.js';

/** How a simulator run ended, and what it measured on the way. */
export interface SimulatorRunEnd {
  scenario: ResolvedScenario;
  runId: string;
  runDir: string;
  world: World;
  logs: SimulatorLogs;
  timing: StepTiming;
  bodies: BodyLink;
  reports: SimulatorReports;
  /** Messages the bridge dropped for slow clients. */
  bridgeDropped: number;
  /** The run's start on the wall clock [ns]; undefined when it never started. */
  t0: bigint | undefined;
  wallStartNs: bigint;
  endNs: bigint;
  failure: unknown;
  interruptReason: string | undefined;
  log: (line: string) => void;
}

/** A car cavsim drives with the idle controller: only its apps ever command it. */
const appsOnly = (v: ResolvedVehicle) => v.controller.type === 'idle' && !runsOwnCode(v);

/** Decides the verdict (run/outcome.ts) and writes summary.json with the same builder as every other run. */
export function summarizeSimulatorRun(end: SimulatorRunEnd): { summary: RunSummary; status: RunSummary['status']; reason?: string } {
  const { scenario, world, timing, bodies, reports, t0 } = end;
  const figures = t0 !== undefined ? timing.figures(t0, expectedCommands(end)) : undefined;
  const bodyFigures = t0 !== undefined && bodies.cars.size ? bodies.figures(end.endNs) : undefined;
  const { status, reason } = decideVerdict({
    failure: end.failure,
    interrupted:
      end.interruptReason && `${end.interruptReason} at t=${world.time.toFixed(2)} s before the scenario's ${scenario.duration} s`,
    invalid:
      [
        figures && timing.invalidReason(figures),
        ...(bodyFigures ? bodies.invalidReasons(bodyFigures) : []),
        reports.forgedReason(),
        reports.floodReason(),
        reports.refusals.invalid(),
      ]
        .filter(Boolean)
        .join('; ') || undefined,
  });
  const built = buildSummary({
    runId: end.runId,
    runtime: 'docker',
    scenario,
    recorder: end.logs.recorder,
    simTime: world.time,
    steps: world.steps,
    wallTime: Math.max(0, Number(end.endNs - (t0 ?? end.wallStartNs)) / 1e9),
    status,
    reason,
    ...(figures
      ? {
          timing: {
            ...figures,
            bridge_dropped_messages: end.bridgeDropped,
            compute: end.logs.computeLog.summary(),
            ...(bodyFigures ? { external: bodyFigures } : {}),
          },
        }
      : {}),
  });
  // what the relays refused, before `parameters` (kept last, as buildSummary writes it)
  const refusals = reports.refusals.figures();
  const { parameters, ...rest } = built;
  const summary: RunSummary = refusals ? { ...rest, refusals, parameters } : built;
  try {
    RunFolder.open(dirname(end.runDir), basename(end.runDir)).writeSummary(summary);
  } catch (err) {
    // The host then builds the summary from the CSVs and the status the simulator publishes.
    end.log(`simulator: summary.json not written: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { summary, status, reason };
}

/**
 * Each car's control ticks in the steps run so far: what a car that answers every tick sends. A
 * car stops ticking when it collides (as in the simulated runtime), so its ticks end there. A car
 * cavsim runs with the idle controller sends a command only when an app acts (a brake), so its
 * silence is not a stall and it is not counted.
 */
function expectedCommands({ scenario, world, logs }: SimulatorRunEnd): Record<string, number> {
  const schedule = stepSchedule(scenario);
  const collidedAt = new Map<string, number>();
  for (const c of logs.recorder.collisions) {
    for (const name of [c.a, c.b]) if (!collidedAt.has(name)) collidedAt.set(name, Math.round(c.t / world.timestep));
  }
  return Object.fromEntries(
    world.cars
      .filter((car) => !car.mirrored && !appsOnly(car.spec))
      .map((car) => [
        car.spec.name,
        Math.floor(Math.min(world.steps, collidedAt.get(car.spec.name) ?? Infinity) / schedule.controlPeriod(car.spec)),
      ]),
  );
}
