/** Stable error codes; only the CLI entry point turns them into exit statuses. */
export type ErrorCode = 'USER_INPUT' | 'ENVIRONMENT' | 'EXTERNAL_PROCESS' | 'RUN_FAILED' | 'LEFTOVERS' | 'INTERNAL';

export const EXIT_STATUS: Record<ErrorCode, number> = {
  USER_INPUT: 2,
  ENVIRONMENT: 3,
  EXTERNAL_PROCESS: 4,
  RUN_FAILED: 5,
  /** The run ended but its teardown left host resources behind (`cavsim teardown --run ID` undoes them). */
  LEFTOVERS: 7,
  INTERNAL: 70,
};

export class CavsimError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint?: string,
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'CavsimError';
  }
}

export class UserInputError extends CavsimError {
  constructor(message: string, details: string[] = [], hint?: string) {
    super('USER_INPUT', message, hint, details);
  }
}

export class EnvironmentError extends CavsimError {
  constructor(message: string, hint: string) {
    super('ENVIRONMENT', message, hint);
  }
}

export class ExternalProcessError extends CavsimError {
  constructor(
    readonly argv: readonly string[],
    readonly exitCode: number | undefined,
    readonly stderrTail: string,
  ) {
    super('EXTERNAL_PROCESS', `${argv.join(' ')} failed (exit ${exitCode ?? 'signal'}): ${stderrTail}`);
  }
}

/** The exit status the CLI gives for an error: its code's status, or 70 for anything untyped (a bug). */
export const exitStatusOf = (err: unknown): number => (err instanceof CavsimError ? EXIT_STATUS[err.code] : EXIT_STATUS.INTERNAL);
