import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunSummary } from '../../../src/run/summary.js';
import type { RunOne, RunRequest } from '../../../src/sweep/run-points.js';

/** The delay (ms) a request sets, from its `network.delay=...ms` override. */
export function delayOf(req: RunRequest): number {
  const o = req.overrides.find((s) => s.startsWith('network.delay='));
  if (!o) throw new Error('no delay override');
  return parseFloat(o.split('=')[1]);
}

/**
 * A stand-in runtime for orchestration tests: the minimum distance falls linearly with the delay
 * and the cars collide above `criticalMs`. Records every request; can throw on chosen calls.
 */
export function fakeRuntime(opts: { criticalMs?: number; failOnCall?: (n: number, req: RunRequest) => Error | undefined } = {}) {
  const calls: RunRequest[] = [];
  let running = 0;
  let maxRunning = 0;
  const runOne: RunOne = async (req) => {
    calls.push(req);
    const error = opts.failOnCall?.(calls.length, req);
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise((r) => setTimeout(r, 1));
    running--;
    if (error) throw error;
    const delay = delayOf(req);
    const seed = Number(req.overrides.find((s) => s.startsWith('seed='))?.split('=')[1] ?? 1);
    const collision = delay > (opts.criticalMs ?? 137);
    const runDir = join(req.runsDir, req.runId);
    mkdirSync(runDir, { recursive: true });
    const summary = {
      schema: 'cavsim.summary/1',
      run_id: req.runId,
      status: 'completed',
      seed,
      sim_time_s: 5,
      wall_time_s: 0.01,
      min_ttc_s: 0.6 - delay / 1000,
      min_distance_m: 3.3 - delay / 100 + seed * 0.01,
      collision,
      first_collision_t_s: collision ? 2.4 : null,
      v2v: { sent: 1, received: 1, lost: 0, p50_ms: delay + 10, p99_ms: delay + 10, max_ms: delay + 10, mean_ms: delay + 10 },
    } as unknown as RunSummary;
    return { summary, runDir };
  };
  return { runOne, calls, maxRunning: () => maxRunning };
}
