/** The signals that ask `cavsim up` to stop: Ctrl-C, a service manager or `kill`, a closed terminal. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

const REASONS: Record<StopSignal, string> = {
  SIGINT: 'stopped by the user',
  SIGTERM: 'stopped by SIGTERM',
  SIGHUP: 'stopped by SIGHUP (its terminal went away)',
};

export interface StopSignals {
  /** True once any stop signal came. */
  requested(): boolean;
  /** Why the run stops, once a signal came. */
  reason(): string | undefined;
  /**
   * Stops asking the run to stop; call after the run's teardown, never before. The process then
   * answers any stop signal until it exits (the first Ctrl-C, or a second one, arriving just after a
   * fast teardown) instead of dying by it with the run's result written and the wrong exit status.
   */
  uninstall(): void;
}

/**
 * Listens for stop signals for the whole of a run, set-up and teardown included. The first asks the
 * run to stop; later ones only say that cavsim is still restoring the host: a run always ends
 * through its teardown. Listening with `on` (not `once`) for all three also keeps execa's
 * signal-exit handler from re-raising a second signal and killing the process half-way.
 */
export function installStopSignals(say: (line: string) => void): StopSignals {
  let first: StopSignal | undefined;
  let exiting: ((signal: StopSignal) => void) | undefined;
  const handler = (signal: StopSignal) => {
    if (!first) {
      first = signal;
      say(`${signal}: stopping the run; what it measured is kept and what it created is undone\n`);
      return;
    }
    say(
      `${signal} again: still stopping and undoing what the run created; cavsim exits once the host is restored (\`cavsim teardown --all\` finishes it after a kill -9)\n`,
    );
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  return {
    requested: () => first !== undefined,
    reason: () => (first ? REASONS[first] : undefined),
    uninstall: () => {
      for (const s of STOP_SIGNALS) process.off(s, handler);
      if (exiting) return;
      let answered = first !== undefined;
      exiting = (signal: StopSignal) => {
        say(`${signal}${answered ? ' again' : ''}: the run and its teardown are over; cavsim is exiting\n`);
        answered = true;
      };
      for (const s of STOP_SIGNALS) process.on(s, exiting);
    },
  };
}
