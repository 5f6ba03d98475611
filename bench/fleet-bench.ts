/**
 * `fleet`: the simulated runtime with many cars, each with a 1080-beam lidar at 40 Hz and 802.11p
 * beacons (10 Hz, 300 B) through ns-3 in lock-step, and the same without the lidar: real-time
 * factor and wall time per car per simulated second at 10, 50 and 100 cars. With BENCH_OLD_BUILD
 * (the root of another checkout, built), each run alternates with the same run of that build, as
 * whole `cavsim up --runtime sim` commands, so the two are compared side by side in one run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCommandRunner } from '../src/host/exec/command-runner.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';
import { loopScenarioYaml } from './sim-bench.js';

const commands = createCommandRunner();

const SUITE = 'fleet';
/** Cars and simulated seconds per run: enough steps to dwarf start-up, short enough for a shared machine. */
const FLEETS: readonly [number, number][] = [
  [10, 10],
  [50, 4],
  [100, 3],
];
const BEACONS = '[{ type: beacon, rate: 10Hz, size: 300B }]';
const LIDAR_40HZ = '{ rate: 40Hz }';

interface Measured {
  /** Simulated seconds per second of the run itself (summary.json's wall time). */
  realTime: number;
  /** The whole command, Node's start and the run's files included [s]. */
  commandWall: number;
}

function fleetYaml(cars: number, seconds: number, lidar: boolean): string {
  const perCar: Record<string, string> = { apps: BEACONS, ...(lidar ? { lidar: LIDAR_40HZ } : {}) };
  return loopScenarioYaml(cars, `${seconds}s`, perCar).replace('\nvehicles:\n', '\nnetwork: { channel: wifi-80211p }\nvehicles:\n');
}

/** Exit status of a scenario the build refuses (a build from before the 64-car cap was lifted). */
const REFUSED = 2;

async function runCommand(buildRoot: string, scenario: string, runsDir: string): Promise<Measured>;
async function runCommand(buildRoot: string, scenario: string, runsDir: string, refusable: true): Promise<Measured | undefined>;
async function runCommand(buildRoot: string, scenario: string, runsDir: string, refusable = false): Promise<Measured | undefined> {
  const started = performance.now();
  const argv = [process.execPath, join(buildRoot, 'dist/cli/main.js'), 'up', '--runtime', 'sim', '--json', '--runs-dir', runsDir, scenario];
  const { stdout, exitCode } = await commands.run(argv, { allowFailure: refusable });
  if (refusable && exitCode === REFUSED) return undefined;
  if (exitCode !== 0) throw new Error(`${buildRoot}: exit status ${exitCode}`);
  const summary = JSON.parse(stdout) as { status: string; reason?: string; sim_time_s: number; wall_time_s: number };
  if (summary.status !== 'completed') throw new Error(`${buildRoot}: run ${summary.status}: ${summary.reason}`);
  return { realTime: summary.sim_time_s / summary.wall_time_s, commandWall: (performance.now() - started) / 1000 };
}

export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const oldBuild = process.env.BENCH_OLD_BUILD;
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-fleet-'));
    const rows: BenchRow[] = [];
    try {
      const file = (cars: number, seconds: number, lidar: boolean) => {
        const path = join(dir, `fleet-${cars}-${lidar ? 'lidar' : 'beacons'}.yaml`);
        writeFileSync(path, fleetYaml(cars, seconds, lidar));
        return path;
      };
      // Warm-up: compiles the ns-3 lock-step program (each build its own) and fills the file cache.
      const warm = file(2, 1, true);
      await runCommand(packageRoot(), warm, join(dir, 'runs'));
      if (oldBuild) await runCommand(oldBuild, warm, join(dir, 'runs'));
      const costPerCar: Record<string, number[]> = { lidar: [], beacons: [] };
      for (const [cars, seconds] of FLEETS) {
        for (const lidar of [true, false]) {
          const scenario = file(cars, seconds, lidar);
          const label = `${cars} cars, ${lidar ? 'lidar 40 Hz + 802.11p' : '802.11p, no lidar'}`;
          const target = cars === 100 ? (lidar ? '>= 1x' : '>= 10x') : undefined;
          const now = await runCommand(packageRoot(), scenario, join(dir, 'runs'));
          rows.push({
            suite: SUITE,
            name: `${label} (x real time)`,
            value: now.realTime,
            unit: 'x',
            target,
            note: `whole command ${now.commandWall.toFixed(2)} s`,
          });
          const perCar = 1000 / (now.realTime * cars);
          costPerCar[lidar ? 'lidar' : 'beacons'].push(perCar);
          rows.push({ suite: SUITE, name: `${label}: wall per car per simulated s`, value: perCar, unit: 'ms' });
          const before = oldBuild ? await runCommand(oldBuild, scenario, join(dir, 'runs'), true) : undefined;
          if (oldBuild && !before)
            rows.push({ suite: SUITE, name: `${label}, build before`, value: 0, unit: 'x', note: 'refused the scenario (exit status 2)' });
          if (before) {
            rows.push({
              suite: SUITE,
              name: `${label}, build before (x real time)`,
              value: before.realTime,
              unit: 'x',
              note: `whole command ${before.commandWall.toFixed(2)} s`,
            });
            rows.push({
              suite: SUITE,
              name: `${label}: speed over the build before`,
              value: now.realTime / before.realTime,
              unit: 'ratio',
              note: `whole command ${(before.commandWall / now.commandWall).toFixed(2)}x`,
            });
          }
        }
      }
      for (const [variant, costs] of Object.entries(costPerCar)) {
        rows.push({
          suite: SUITE,
          name: `${variant}: cost per car, ${FLEETS.at(-1)![0]} over ${FLEETS[0][0]} cars`,
          value: costs.at(-1)! / costs[0],
          unit: 'ratio',
          target: '1 (flat)',
        });
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
