import { percentileOfSorted } from '../../../util/percentile.js';

export interface StepTimingFigures {
  steps: number;
  step_s: number;
  t0_epoch_ns: string;
  step_lateness_p50_ms: number | null;
  step_lateness_p99_ms: number | null;
  step_lateness_max_ms: number | null;
  step_lateness_mean_ms: number | null;
  step_compute_p99_ms: number | null;
  /** Drive command arrival minus the scheduled publication of the odometry step it is stamped with. */
  control_commands: number;
  control_lag_p50_ms: number | null;
  control_lag_p99_ms: number | null;
  control_lag_max_ms: number | null;
  /** Commands that arrived after the next step had begun: physics applied them a step late. */
  late_commands: number;
  late_command_fraction: number;
  /**
   * The odometry steps the late commands answered, counted once each: a few steps that all cars
   * missed at once are the machine stalling; late commands spread over many steps, too many cars.
   */
  late_command_steps: number;
  late_threshold_ms: number;
  late_steps: number;
  late_fraction: number;
  max_late_fraction: number;
  /** Per car, the drive commands that answered an odometry step, and the control ticks the run had. */
  drive_commands_by_car?: Record<string, { received: number; expected: number }>;
}

/** Commands a car may miss without counting: its first tick (before its first odometry) and the last, cut by the stop. */
const COMMAND_SLACK = 2;

/** Each physics step's lateness (actual start - scheduled start) and compute time, in ms. */
export class StepTiming {
  private readonly lateness: number[] = [];
  private readonly compute: number[] = [];
  /** 10 µs bins up to 100 ms (and one overflow bin): a running p99 without sorting each time. */
  private readonly histogram = new Uint32Array(10_001);
  private max = 0;
  private readonly controlLag: number[] = [];
  private readonly commandsByCar = new Map<string, number>();
  private readonly lateCommandSteps = new Set<number>();

  constructor(
    private readonly limits: { maxStepLateness: number; maxLateFraction: number },
    private readonly stepSeconds: number,
  ) {}

  add(latenessMs: number, computeMs: number): void {
    this.lateness.push(latenessMs);
    this.compute.push(computeMs);
    this.histogram[Math.min(this.histogram.length - 1, Math.max(0, Math.floor(latenessMs * 100)))]++;
    this.max = Math.max(this.max, latenessMs);
  }

  /** A drive command stamped with the odometry step it answered (`step`), from `car`. */
  addControlLag(ms: number, car?: string, step?: number): void {
    this.controlLag.push(ms);
    if (step !== undefined && ms > this.stepSeconds * 1000) this.lateCommandSteps.add(step);
    if (car !== undefined) this.commandsByCar.set(car, (this.commandsByCar.get(car) ?? 0) + 1);
  }

  get count(): number {
    return this.lateness.length;
  }

  /** Running p99 (to the 10 µs bin's upper edge) and max, cheap enough for every progress report. */
  snapshot(): { p99_ms: number; max_ms: number } | null {
    const n = this.lateness.length;
    if (!n) return null;
    const rank = Math.ceil(0.99 * n);
    let seen = 0;
    let bin = 0;
    for (; bin < this.histogram.length; bin++) {
      seen += this.histogram[bin];
      if (seen >= rank) break;
    }
    return { p99_ms: round(Math.min(this.max, (bin + 1) / 100)), max_ms: round(this.max) };
  }

  /** `expectedCommands`: each car's control ticks in the run, to judge cars that stopped answering. */
  figures(t0Ns: bigint, expectedCommands?: Record<string, number>): StepTimingFigures {
    const sorted = [...this.lateness].sort((a, b) => a - b);
    const compute = [...this.compute].sort((a, b) => a - b);
    const lag = [...this.controlLag].sort((a, b) => a - b);
    const thresholdMs = this.limits.maxStepLateness * 1000;
    const lateCommands = lag.filter((l) => l > this.stepSeconds * 1000).length;
    const late = sorted.filter((l) => l > thresholdMs).length;
    const r = (v: number | undefined) => (v === undefined ? null : round(v));
    return {
      steps: sorted.length,
      step_s: this.stepSeconds,
      t0_epoch_ns: t0Ns.toString(),
      step_lateness_p50_ms: r(percentileOfSorted(sorted, 50)),
      step_lateness_p99_ms: r(percentileOfSorted(sorted, 99)),
      step_lateness_max_ms: r(sorted.at(-1)),
      step_lateness_mean_ms: r(sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : undefined),
      step_compute_p99_ms: r(percentileOfSorted(compute, 99)),
      control_commands: lag.length,
      control_lag_p50_ms: r(percentileOfSorted(lag, 50)),
      control_lag_p99_ms: r(percentileOfSorted(lag, 99)),
      control_lag_max_ms: r(lag.at(-1)),
      late_commands: lateCommands,
      late_command_fraction: lag.length ? round(lateCommands / lag.length) : 0,
      late_command_steps: this.lateCommandSteps.size,
      late_threshold_ms: thresholdMs,
      late_steps: late,
      late_fraction: sorted.length ? round(late / sorted.length) : 0,
      max_late_fraction: this.limits.maxLateFraction,
      ...(expectedCommands
        ? {
            drive_commands_by_car: Object.fromEntries(
              Object.entries(expectedCommands).map(([car, expected]) => [car, { received: this.commandsByCar.get(car) ?? 0, expected }]),
            ),
          }
        : {}),
    };
  }

  /** Why the run's timing makes it invalid, or undefined when it is within the scenario's limits. */
  invalidReason(f: StepTimingFigures): string | undefined {
    const allowed = `the scenario allows ${pct(f.max_late_fraction)} (timing.maxLateFraction)`;
    const reasons = [
      ...(f.late_fraction > f.max_late_fraction
        ? [`${f.late_steps} of ${f.steps} physics steps (${pct(f.late_fraction)}) started more than ${f.late_threshold_ms} ms late`]
        : []),
      ...(f.late_command_fraction > f.max_late_fraction
        ? [
            `${f.late_commands} of ${f.control_commands} drive commands (${pct(f.late_command_fraction)}) arrived too late for the next physics step (control lag over ${f.step_s * 1000} ms)${f.late_command_steps ? `, answering ${f.late_command_steps} of ${f.steps} steps` : ''}`,
          ]
        : []),
      ...silentCars(f).map(
        ({ car, received, expected }) =>
          `${car} answered ${received} of ${expected} control ticks (${pct(1 - received / expected)} unanswered): it stalled, was paused or stopped driving`,
      ),
    ];
    return reasons.length ? `${reasons.join('; ')}; ${allowed}` : undefined;
  }
}

/**
 * Cars that answered some control ticks and then missed more than the scenario's late fraction of
 * them: a hung or paused car whose missing commands would otherwise count for nothing. A car that
 * never stamps its commands (an image of its own that need not) is not judged.
 */
function silentCars(f: StepTimingFigures): { car: string; received: number; expected: number }[] {
  return Object.entries(f.drive_commands_by_car ?? {})
    .map(([car, c]) => ({ car, ...c }))
    .filter(
      ({ received, expected }) =>
        received > 0 && expected - received > COMMAND_SLACK && (expected - received) / expected > f.max_late_fraction,
    );
}

const round = (v: number) => +v.toFixed(4);
const pct = (fraction: number) => `${(fraction * 100).toFixed(1)} %`;
