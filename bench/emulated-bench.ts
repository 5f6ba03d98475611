import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { runEmulated } from '../src/runtime/emulated/run-emulated.js';
import { createEmulatedDeps } from '../src/api/run-emulated.js';
import { loopScenarioYaml } from './sim-bench.js';
import type { BenchRow, BenchSuite } from './main.js';
import { measureTimerBaseline } from './timer-baseline.js';
import { describeError, notValidRow, parseVehicleCounts, scalingRows, type ScalingOutcome } from './vehicle-scaling.js';
import { packageRoot } from '../src/util/package-root.js';

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
    { suite, name: `${name}: up to first physics step`, value: phases.started / 1000, unit: 's', target: name.startsWith('2 ') ? '<= 3 s' : undefined },
    { suite, name: `${name}: of which containers`, value: (phases.containers - phases.compiled) / 1000, unit: 's' },
    { suite, name: `${name}: of which host network + ns-3`, value: (phases.channel - phases.containers) / 1000, unit: 's' },
    { suite, name: `${name}: teardown`, value: phases.teardown / 1000, unit: 's', target: '<= 2 s' },
    { suite, name: `${name}: step lateness p99`, value: timing.step_lateness_p99_ms, unit: 'ms' },
    { suite, name: `${name}: late steps (> ${timing.late_threshold_ms} ms)`, value: timing.late_fraction * 100, unit: '%' },
  ];
}

/**
 * One loop-track run with `vehicles` cars, 5 s. Never throws: an invalid run is an outcome like any
 * other, and a run that cannot start or fails is reported with its reason.
 */
async function runLoop(vehicles: number, dir: string, lidar = false): Promise<ScalingOutcome> {
  const extra = lidar ? { extra: 'lidar on every car' } : {};
  try {
    const file = join(dir, `loop-${vehicles}${lidar ? '-lidar' : ''}.yaml`);
    writeFileSync(file, loopScenarioYaml(vehicles, '5s', lidar ? { lidar: '{}' } : {}));
    const scenario = await loadScenario(file, { overrides: ['duration=5s'] });
    const { summary, phases } = await runEmulated(scenario, createEmulatedDeps(), { runsDir: join(dir, 'runs') });
    return { vehicles, ...extra, status: summary.status, reason: summary.reason, simTimeS: summary.sim_time_s, timing: summary.timing, phases };
  } catch (err) {
    return { vehicles, ...extra, status: 'failed', reason: describeError(err) };
  }
}

/**
 * Start-up and lateness for the 2-vehicle head-on, then the loop track at 8, 16 and 32 cars
 * (`BENCH_VEHICLES=10,16` runs others): step lateness, drive-command lag, the run's verdict, and
 * the smallest count whose run was not valid; then 48 cars with a lidar each
 * (`BENCH_LIDAR_VEHICLES`, 0 to skip).
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
        { suite, name: 'timer baseline: lateness p99, simulator container stepping an empty loop alone', value: baseline.p99_ms, unit: 'ms', note: `p50 ${baseline.p50_ms.toFixed(3)}, max ${baseline.max_ms.toFixed(3)}` },
        ...two,
        { suite, name: '2 vehicles: step lateness p99 / timer baseline p99', value: p99(two) / baseline.p99_ms, unit: 'x' },
      ];
      const outcomes: ScalingOutcome[] = [];
      for (const n of counts) {
        const outcome = await runLoop(n, dir);
        outcomes.push(outcome);
        rows.push(...scalingRows(outcome, baseline.p99_ms));
      }
      rows.push(notValidRow(outcomes));
      // The heaviest case, reported whatever it gives: every car also receives a 1080-beam scan at 40 Hz.
      const lidarCount = Number(process.env.BENCH_LIDAR_VEHICLES ?? 48);
      if (lidarCount > 0) rows.push(...scalingRows(await runLoop(lidarCount, dir, true), baseline.p99_ms));
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
