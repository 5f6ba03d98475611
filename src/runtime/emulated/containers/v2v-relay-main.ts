#!/usr/bin/env node
/**
 * Entry point of the V2V relay beside a vehicle that runs its own code (emulated runtime). Same
 * environment as a vehicle container (docs/control-protocol.md); it shares that container's network.
 */
import { readVehicleEnv } from './process-env.js';
import { startV2VRelay } from './v2v-relay.js';
import { systemWallClock } from './wall-clock.js';

async function main(): Promise<number> {
  const env = readVehicleEnv(process.env);
  const log = (line: string) => process.stderr.write(`[cavsim-${env.vehicle}-v2v] ${line}\n`);
  const relay = await startV2VRelay({ ...env, clock: systemWallClock, log });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => relay.interrupt(`${signal} received`));
  return (await relay.finished).exitCode;
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    process.stderr.write(`[cavsim-v2v-relay] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
