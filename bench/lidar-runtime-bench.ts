import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runResolvedSimulated } from '../src/api/run-simulated.js';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';
import { loopScenarioYaml } from './sim-bench.js';

const SUITE = 'lidar-runtime';
/** f1tenth_gym's scan (1080 beams, 4.7 rad, 30 m, noise), once per 10 ms physics step (the default rate). */
const DEFAULT_LIDAR = { lidar: '{ enabled: true }' };
const SCAN_RATE = 100;

/** Simulated seconds per wall-clock second for a scenario file, writing its run folder included. */
async function realTimeMultiple(file: string, dir: string): Promise<number> {
  const scenario = await loadScenario(file);
  const started = performance.now();
  const { summary } = await runResolvedSimulated(scenario, { runsDir: join(dir, 'runs') });
  const wall = (performance.now() - started) / 1000;
  if (summary.status !== 'completed') throw new Error(`bench run ${summary.status}: ${summary.reason}`);
  return summary.sim_time_s / wall;
}

async function inTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-'));
  try {
    return await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const loop = (n: number, seconds: number, perCar: Record<string, string> = {}) =>
  inTempDir((dir) => {
    const file = join(dir, 'scenario.yaml');
    writeFileSync(file, loopScenarioYaml(n, `${seconds}s`, perCar));
    return realTimeMultiple(file, dir);
  });

export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    await loop(2, 5, DEFAULT_LIDAR); // warm-up: JIT and file cache
    const rows: BenchRow[] = [];
    for (const [n, seconds] of [
      [2, 60],
      [10, 20],
    ] as const) {
      const without = await loop(n, seconds);
      const withLidar = await loop(n, seconds, DEFAULT_LIDAR);
      rows.push(
        { suite: SUITE, name: `loop, ${n} cars, no lidar (x real time)`, value: without, unit: 'x' },
        { suite: SUITE, name: `loop, ${n} cars, default lidar 100 Hz (x real time)`, value: withLidar, unit: 'x' },
        {
          suite: SUITE,
          name: `loop, ${n} cars: wall time added per scan`,
          value: ((1 / withLidar - 1 / without) / (n * SCAN_RATE)) * 1e6,
          unit: 'us',
          note: 'lidar + LaserScan hand-over, from the two runs above',
        },
      );
    }
    const mixed = join(packageRoot(), 'scenarios/mixed-four.yaml');
    rows.push({
      suite: SUITE,
      name: 'mixed-four: pursuit, gap, wall, RRT (x real time)',
      value: await inTempDir((dir) => realTimeMultiple(mixed, dir)),
      unit: 'x',
    });
    return rows;
  },
};
