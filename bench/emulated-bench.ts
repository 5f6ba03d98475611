import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEmulatedDeps } from '../src/api/run-emulated.js';
import { runEmulated } from '../src/runtime/emulated/run-emulated.js';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';
import { loopScenarioYaml } from './sim-bench.js';
import { measureTimerBaseline } from './timer-baseline.js';
import { comparisonRows, describeError, notValidRow, parseVehicleCounts, type ScalingOutcome, scalingRows } from './vehicle-scaling.js';

/** `cavsim up` to the first physics step, teardown time, and step lateness, for the 2-vehicle head-on. */
async function measure(name: string, scenarioFile: string, runsDir: string): Promise<BenchRow[]> {
  const deps = createEmulatedDeps();
  await deps.docker.ping();
  const scenario = await loadScenario(scenarioFile, { overrides: ['duration=5s'] });
  const { summary, phases } = await runEmulated(scenario, deps, { runsDir });
  if (summary.status === 'failed') throw new Error(`${name}: run failed: ${summary.reason}`);
  const timing = summary.timing as Record<string, number>;
  const suite = 'emulated-runtime';
  return [
    {
      suite,
      name: `${name}: up to first physics step`,
      value: phases.started / 1000,
      unit: 's',
      target: name.startsWith('2 ') ? '<= 3 s' : undefined,
    },
    { suite, name: `${name}: of which containers`, value: (phases.containers - phases.compiled) / 1000, unit: 's' },
    { suite, name: `${name}: of which host network + ns-3`, value: (phases.channel - phases.containers) / 1000, unit: 's' },
    { suite, name: `${name}: teardown`, value: phases.teardown / 1000, unit: 's', target: '<= 2 s' },
    { suite, name: `${name}: step lateness p99`, value: timing.step_lateness_p99_ms, unit: 'ms' },
    { suite, name: `${name}: late steps (> ${timing.late_threshold_ms} ms)`, value: timing.late_fraction * 100, unit: '%' },
  ];
}

/** What runs an emulated scenario: this build's modules, or those of the build before. */
interface EmulatedBuild {
  loadScenario: typeof loadScenario;
  runEmulated: typeof runEmulated;
  createEmulatedDeps: typeof createEmulatedDeps;
}

const THIS_BUILD: EmulatedBuild = { loadScenario, runEmulated, createEmulatedDeps };

/**
 * BENCH_OLD_BUILD (the root of another checkout, built): its own modules, run in this process. Its
 * images are its own too: it rebuilds `cavsim/vehicle` and `cavsim/simulator` from its dist/ when
 * first used, so its runs come after this build's, and start-up is compared without the image check.
 */
async function buildBefore(root: string): Promise<EmulatedBuild> {
  const dist = (path: string) => pathToFileURL(join(resolve(root), 'dist', path)).href;
  return {
    loadScenario: (await import(dist('scenario/load-scenario.js'))).loadScenario,
    runEmulated: (await import(dist('runtime/emulated/run-emulated.js'))).runEmulated,
    createEmulatedDeps: (await import(dist('api/run-emulated.js'))).createEmulatedDeps,
  };
}

/**
 * One loop-track run with `vehicles` cars, 5 s. Never throws: an invalid run is an outcome like any
 * other, and a run that cannot start or fails is reported with its reason.
 */
async function runLoop(vehicles: number, dir: string, lidar = false, build = THIS_BUILD, nodeCars = false): Promise<ScalingOutcome> {
  const extra = lidar ? { extra: 'lidar on every car' } : nodeCars ? { extra: "every car on Node's vehicle program" } : {};
  try {
    const file = join(dir, `loop-${vehicles}${lidar ? '-lidar' : ''}.yaml`);
    writeFileSync(file, loopScenarioYaml(vehicles, '5s', lidar ? { lidar: '{}' } : {}));
    const scenario = await build.loadScenario(file, { overrides: ['duration=5s'] });
    const { summary, phases } = await build.runEmulated(scenario, build.createEmulatedDeps(), {
      runsDir: join(dir, 'runs'),
      ...(nodeCars ? { lightCars: false } : {}),
    });
    return {
      vehicles,
      ...extra,
      status: summary.status,
      reason: summary.reason,
      simTimeS: summary.sim_time_s,
      timing: summary.timing,
      phases,
    };
  } catch (err) {
    return { vehicles, ...extra, status: 'failed', reason: describeError(err) };
  }
}

/**
 * Start-up and lateness for the 2-vehicle head-on, then the loop track at 8, 16 and 32 cars
 * (`BENCH_VEHICLES=10,16` runs others): step lateness, drive-command lag, the run's verdict, and
 * the smallest count whose run was not valid; then 48 cars with a lidar each
 * (`BENCH_LIDAR_VEHICLES`, 0 to skip). With BENCH_OLD_BUILD, the same runs again with that build.
 * With BENCH_NODE_CARS=1, each count again with every car on Node's vehicle program (cars that
 * may otherwise run the light-car one; docs/containers.md), one after the other.
 */
export const suite: BenchSuite = {
  name: 'emulated-runtime',
  needsRoot: true,
  async run() {
    const counts = parseVehicleCounts(process.env.BENCH_VEHICLES);
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-emulated-'));
    try {
      const headOn = join(packageRoot(), 'scenarios/head-on-brake.yaml');
      // the first run may build images; measure afterwards
      await measure('warm-up', headOn, join(dir, 'runs'));
      const baseline = await measureTimerBaseline(createEmulatedDeps().docker);
      const two = await measure('2 vehicles (head-on)', headOn, join(dir, 'runs'));
      const p99 = (rows: BenchRow[]) => rows.find((r) => r.name.endsWith('step lateness p99'))!.value;
      const suite = 'emulated-runtime';
      const rows: BenchRow[] = [
        {
          suite,
          name: 'timer baseline: lateness p99, simulator container stepping an empty loop alone',
          value: baseline.p99_ms,
          unit: 'ms',
          note: `p50 ${baseline.p50_ms.toFixed(3)}, max ${baseline.max_ms.toFixed(3)}`,
        },
        ...two,
        { suite, name: '2 vehicles: step lateness p99 / timer baseline p99', value: p99(two) / baseline.p99_ms, unit: 'x' },
      ];
      const outcomes: ScalingOutcome[] = [];
      for (const n of counts) {
        const outcome = await runLoop(n, dir);
        outcomes.push(outcome);
        rows.push(...scalingRows(outcome, baseline.p99_ms));
        if (process.env.BENCH_NODE_CARS === '1') rows.push(...scalingRows(await runLoop(n, dir, false, THIS_BUILD, true), baseline.p99_ms));
      }
      rows.push(notValidRow(outcomes));
      // The heaviest case, reported whatever it gives: every car also receives a 1080-beam scan at 40 Hz.
      const lidarCount = Number(process.env.BENCH_LIDAR_VEHICLES ?? 48);
      const lidarOutcome = lidarCount > 0 ? await runLoop(lidarCount, dir, true) : undefined;
      if (lidarOutcome) rows.push(...scalingRows(lidarOutcome, baseline.p99_ms));
      const oldRoot = process.env.BENCH_OLD_BUILD;
      if (oldRoot) {
        const before = await buildBefore(oldRoot);
        for (const now of outcomes) rows.push(...comparisonRows(now, await runLoop(now.vehicles, dir, false, before)));
        if (lidarOutcome) rows.push(...comparisonRows(lidarOutcome, await runLoop(lidarCount, dir, true, before)));
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
