import { CavsimError } from '../../errors.js';
import { RunControl } from '../rosbridge/run-control.js';
import type { ControlLink } from './emulated-deps.js';
import { epochNs } from './v2v/wire.js';

const CLOSE_ANSWER_MS = 2000;

/** The orchestrator's ControlLink over the simulator's rosbridge endpoint. */
export async function connectControlLink(url: string, timeoutMs: number): Promise<ControlLink> {
  const control = await RunControl.connect(url, { timeoutMs });
  return {
    async waitForVehicles(names, waitMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const missing = names.filter((n) => !control.status?.ready.includes(n));
          reject(
            new CavsimError(
              'RUN_FAILED',
              `vehicles ${missing.join(', ')} did not connect to the simulator within ${waitMs / 1000} s`,
              'see the vehicle logs in the run folder (logs/)',
            ),
          );
        }, waitMs);
      });
      try {
        await Promise.race([control.waitFor((s) => names.every((n) => s.ready.includes(n))), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    // t0 a little ahead, so every container has the start command before the first step is due
    start: async () => {
      const t0 = epochNs() + 150_000_000n;
      await control.start(t0);
      return t0;
    },
    stop: async (reason = 'stopped by the user') => control.stop(reason),
    onStatus: (listener) => void control.onStatus(listener),
    onOdometry: (car, listener) => void control.onOdometry(car, listener),
    closed: control.closed,
    // A live simulator answers a close at once; a gone one (its namespace with it) never does.
    close: () => control.close(CLOSE_ANSWER_MS),
  };
}
