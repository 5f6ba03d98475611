import { BridgeClient } from '../../bridge/bridge-client.js';
import { TOPICS, type SimulatorStatus } from '../../bridge/control-topics.js';
import { MSG_TYPES, parseStringMsg, stringMsg } from '../../bridge/ros-messages.js';
import { CavsimError } from '../../errors.js';
import type { ControlLink } from './emulated-deps.js';

/**
 * The orchestrator's end of the control link: it watches the simulator's latched /cavsim/status,
 * and commands /sim_control. Start carries the shared epoch every container measures run time from.
 */
export async function connectControlLink(url: string, timeoutMs: number): Promise<ControlLink> {
  const client = await BridgeClient.connect(url, { timeoutMs });
  let latest: SimulatorStatus | undefined;
  const listeners = new Set<(s: SimulatorStatus) => void>();
  client.subscribe(TOPICS.status, MSG_TYPES.string, (msg) => {
    latest = JSON.parse(parseStringMsg(msg)) as SimulatorStatus;
    for (const l of listeners) l(latest);
  });
  client.advertise(TOPICS.simControl, MSG_TYPES.string);
  const command = (data: Record<string, unknown>) => client.publish(TOPICS.simControl, stringMsg(JSON.stringify(data)) as unknown as Record<string, unknown>);

  return {
    waitForVehicles(names, waitMs) {
      const allReady = (s: SimulatorStatus | undefined) => !!s && names.every((n) => s.ready.includes(n));
      if (allReady(latest)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          const missing = names.filter((n) => !latest?.ready.includes(n));
          reject(new CavsimError('RUN_FAILED', `vehicles ${missing.join(', ')} did not connect to the simulator within ${waitMs / 1000} s`, 'see the vehicle logs in the run folder (logs/)'));
        }, waitMs);
        const check = (s: SimulatorStatus) => {
          if (!allReady(s)) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
      });
    },
    async start() {
      command({ cmd: 'start', t0_epoch_ns: (BigInt(Date.now()) * 1_000_000n + 50_000_000n).toString() });
    },
    async stop() {
      command({ cmd: 'stop', reason: 'stopped by the user' });
    },
    onStatus(listener) {
      listeners.add(listener);
    },
    close: () => client.close(),
  };
}
