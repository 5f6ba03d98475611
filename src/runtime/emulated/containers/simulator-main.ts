#!/usr/bin/env node
import { createIdleCollector } from './idle-collector.js';
import { stayUpIfKept } from './keep-alive.js';
/**
 * Entry point of the simulator container. Environment contract (docs/control-protocol.md):
 * CAVSIM_RUN_DIR (required), CAVSIM_RUN_ID, CAVSIM_MAP, CAVSIM_BIND (default 0.0.0.0:9090).
 * Prints one JSON line `{"event":"listening",...}` on stdout once the bridge accepts connections.
 */
import { readSimulatorEnv } from './process-env.js';
import { startSimulatorProcess, writeStartupFailure } from './simulator-process.js';
import { systemWallClock } from './wall-clock.js';

const log = (line: string) => process.stderr.write(`[cavsim-sim] ${line}\n`);

async function main(): Promise<number> {
  const env = readSimulatorEnv(process.env);
  let sim;
  try {
    sim = await startSimulatorProcess({ ...env, clock: systemWallClock, collectGarbage: createIdleCollector(), log });
  } catch (err) {
    // The host completes this summary through the same builder as every other end.
    const reason = describe(err);
    log(`cannot start: ${reason}`);
    writeStartupFailure(env.runDir, env.runId, reason);
    return 1;
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => sim.interrupt(signal));
  process.stdout.write(`${JSON.stringify({ event: 'listening', host: env.bind.host, port: sim.port })}\n`);
  const { summary, exitCode } = await sim.finished;
  log(`run ${summary.status}${summary.reason ? `: ${summary.reason}` : ''}`);
  await stayUpIfKept(process.env, log);
  return exitCode;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const details = (err as { details?: string[] }).details ?? [];
  return [err.message, ...details].join('; ');
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    log(describe(err));
    // Its bridge may still hold the event loop: the host must see the simulator go.
    process.exit(1);
  },
);
