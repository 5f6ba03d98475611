import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runResolvedSimulated } from '../src/api/run-simulated.js';
import { parseNumericCsv } from '../src/core/control/waypoints.js';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';

const MAPS = join(packageRoot(), 'maps');

/** n cars spread evenly along the loop track's centreline, all on pure pursuit; `perCar`: extra YAML keys for every car, e.g. '{ lidar: {} }'. */
export function loopScenarioYaml(n: number, duration = '20s', perCar: Record<string, string> = {}): string {
  const { rows } = parseNumericCsv(readFileSync(join(MAPS, 'loop.centerline.csv'), 'utf8'), ['x', 'y', 'speed']);
  const cars = Array.from({ length: n }, (_, i) => {
    const k = Math.floor((i * rows.length) / n);
    const a = rows[k];
    const b = rows[(k + 1) % rows.length];
    const yaw = Math.atan2(b.y - a.y, b.x - a.x);
    return `  - name: car${i}
    start: { x: ${a.x}, y: ${a.y}, yaw: ${yaw}, speed: 4 }
    controller: { type: pure-pursuit, waypoints: ${join(MAPS, 'loop.centerline.csv')}, lookahead: 1.5, loop: true }${Object.entries(perCar)
      .map(([k, v]) => `\n    ${k}: ${v}`)
      .join('')}`;
  });
  return `name: bench-loop-${n}\nmap: ${join(MAPS, 'loop.yaml')}\nduration: ${duration}\nvehicles:\n${cars.join('\n')}\n`;
}

async function realTimeMultiple(n: number, duration: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-'));
  try {
    writeFileSync(join(dir, 'scenario.yaml'), loopScenarioYaml(n, `${duration}s`));
    const scenario = await loadScenario(join(dir, 'scenario.yaml'));
    const started = performance.now();
    const { summary } = await runResolvedSimulated(scenario, { runsDir: join(dir, 'runs') });
    const wall = (performance.now() - started) / 1000;
    if (summary.status !== 'completed') throw new Error(`bench run ${summary.status}: ${summary.reason}`);
    return summary.sim_time_s / wall;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function headOnMultiple(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-'));
  try {
    const scenario = await loadScenario(join(packageRoot(), 'scenarios/head-on-brake.yaml'));
    const started = performance.now();
    const { summary } = await runResolvedSimulated(scenario, { runsDir: join(dir, 'runs') });
    return summary.sim_time_s / ((performance.now() - started) / 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  name: 'simulated-runtime',
  async run() {
    await realTimeMultiple(2, 5); // warm-up: JIT and file cache
    const rows: BenchRow[] = [];
    for (const [n, duration] of [
      [2, 60],
      [10, 30],
      [50, 10],
    ] as const) {
      rows.push({
        suite: 'simulated-runtime',
        name: `loop track, ${n} cars (x real time)`,
        value: await realTimeMultiple(n, duration),
        unit: 'x',
        target: n === 2 ? '>= 500x' : undefined,
      });
    }
    rows.push({
      suite: 'simulated-runtime',
      name: 'head-on-brake, whole run incl. files (x real time)',
      value: await headOnMultiple(),
      unit: 'x',
    });
    return rows;
  },
};
