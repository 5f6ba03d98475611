import { CavsimError, EXIT_STATUS } from '../errors.js';

/** How a run ended. Both runtimes decide it here and nowhere else. */
export type RunStatus = 'completed' | 'invalid' | 'failed' | 'interrupted';

/**
 * Exit status of `cavsim up` (and of a sweep) per outcome; bad input (2), environment (3),
 * external command (4) and internal (70) errors come from `EXIT_STATUS` in errors.ts.
 */
export const RUN_EXIT_STATUS: Record<RunStatus, number> = {
  completed: 0,
  failed: 5,
  invalid: 6,
  interrupted: 130,
};

/** The component whose death ended a run, as `summary.json` names it. */
export interface FailedComponent {
  /** e.g. `ns-3 channel`, `simulator container`, `vehicle car1 container`, `control link`. */
  component: string;
  exit_status: number | null;
  signal: string | null;
  /** Its last log lines, newest last. */
  last_log_lines: string[];
  /** What it did wrong when it did not die (e.g. `did not answer tick 57 within 10 s`). */
  how?: string;
}

/** A component died during the run: the run is `failed` and names it. */
export class ComponentFailedError extends CavsimError {
  constructor(
    readonly failed: FailedComponent,
    readonly when: string,
    hint?: string,
  ) {
    super('RUN_FAILED', describeComponentFailure(failed, when), hint);
    this.name = 'ComponentFailedError';
  }
}

export function describeComponentFailure(f: FailedComponent, when: string): string {
  const how =
    f.how ?? (f.signal ? `was killed by ${f.signal}` : f.exit_status === null ? 'went away' : `exited with status ${f.exit_status}`);
  const tail = f.last_log_lines.length ? `: ${f.last_log_lines.join(' | ')}` : '';
  return `the ${f.component} ${how} ${when}${tail}`;
}

export interface RunVerdict {
  status: RunStatus;
  reason?: string;
  failed_component?: FailedComponent;
  /** What `cavsim up` exits with: the status's, or a typed error's own (environment 3, bad input 2, external command 4). */
  exit_status: number;
  /** How to fix it, when the failure says. */
  hint?: string;
}

/**
 * The one rule for a run's status: a failure beats an interruption, which beats a validity problem
 * (late steps or commands), which beats completion.
 */
export function decideVerdict(input: { failure?: unknown; interrupted?: string; invalid?: string }): RunVerdict {
  if (input.failure !== undefined) {
    const f = input.failure;
    const reason = f instanceof Error ? f.message : String(f);
    const typed = f instanceof CavsimError && f.code !== 'RUN_FAILED' ? EXIT_STATUS[f.code] : undefined;
    return {
      status: 'failed',
      reason,
      ...(f instanceof ComponentFailedError ? { failed_component: f.failed } : {}),
      exit_status: typed ?? RUN_EXIT_STATUS.failed,
      ...(f instanceof CavsimError && f.hint ? { hint: f.hint } : {}),
    };
  }
  if (input.interrupted) return { status: 'interrupted', reason: input.interrupted, exit_status: RUN_EXIT_STATUS.interrupted };
  if (input.invalid) return { status: 'invalid', reason: input.invalid, exit_status: RUN_EXIT_STATUS.invalid };
  return { status: 'completed', exit_status: RUN_EXIT_STATUS.completed };
}
