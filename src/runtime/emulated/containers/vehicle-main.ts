#!/usr/bin/env node
import { stayUpIfKept } from './keep-alive.js';
/**
 * Entry point of a vehicle container. Environment contract (docs/control-protocol.md):
 * CAVSIM_RUN_DIR, CAVSIM_VEHICLE, CAVSIM_SIM_URL (required), CAVSIM_V2V_PEERS (JSON),
 * CAVSIM_V2V_BIND (default 0.0.0.0:7400), CAVSIM_KEEP (stay up after the run), CAVSIM_CONNECT_TIMEOUT_MS (default 30000).
 */
import { readVehicleEnv } from './process-env.js';
import { startVehicleProcess } from './vehicle-process.js';
import { systemWallClock } from './wall-clock.js';

async function main(): Promise<number> {
  const env = readVehicleEnv(process.env);
  const log = (line: string) => process.stderr.write(`[cavsim-${env.vehicle}] ${line}\n`);
  const vehicle = await startVehicleProcess({ ...env, clock: systemWallClock, log });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => vehicle.interrupt(`${signal} received`));
  const { exitCode } = await vehicle.finished;
  await stayUpIfKept(process.env, log);
  return exitCode;
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    const details = (err as { details?: string[] }).details ?? [];
    process.stderr.write(`[cavsim-vehicle] ${[err instanceof Error ? err.message : String(err), ...details].join('; ')}\n`);
    process.exitCode = 1;
  },
);
