import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ringScenarioYaml } from '../../../../bench/viewer/ring-scenario.js';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';
import { footprintCorners } from '../../../../src/core/physics/footprint.js';
import { Lidar } from '../../../../src/core/sensing/lidar.js';
import type { ResolvedScenario } from '../../../../src/scenario/resolved.js';
import { loadScenarioMap } from '../../../../src/scenario/scenario-map.js';

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export const newRunsDir = () => mkdtempSync(join(tmpdir(), 'cavsim-viz-'));

/** The thesis's head-on experiment, run for real by the simulated runtime. */
export async function headOnRun(runsDir: string, delay = '200ms'): Promise<string> {
  const { runDir } = await runScenarioSimulated(join(ROOT, 'scenarios/head-on-brake.yaml'), {
    overrides: [`network.delay=${delay}`],
    runsDir,
  });
  return runDir;
}

/** Six cars on the loop; one brake broadcast at about 4.74 s reaches the others 100 ms later. */
export async function ringRun(runsDir: string): Promise<string> {
  const file = join(runsDir, 'ring-demo.yaml');
  writeFileSync(file, ringScenarioYaml({ cars: 6, duration: 8, delayMs: 100, speedSpread: 0.6, ttcThresholdMs: 1500, name: 'ring-demo' }));
  return (await runScenarioSimulated(file, { runsDir })).runDir;
}

export interface VehicleRow {
  t: number;
  vehicle: string;
  x: number;
  y: number;
  yaw: number;
  v: number;
}

/** vehicles.csv read independently of the view's own parser. */
export function readVehicleRows(runDir: string): VehicleRow[] {
  const [header, ...lines] = readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n');
  const col = header.split(',');
  const at = (cells: string[], name: string) => cells[col.indexOf(name)];
  return lines.map((l) => {
    const c = l.split(',');
    return {
      t: +at(c, 't_s'),
      vehicle: at(c, 'vehicle'),
      x: +at(c, 'x_m'),
      y: +at(c, 'y_m'),
      yaw: +at(c, 'yaw_rad'),
      v: +at(c, 'speed_mps'),
    };
  });
}

/** Each car's last row at or before t, as the CSV has it. */
export function rowsAt(rows: VehicleRow[], t: number): Map<string, VehicleRow> {
  const out = new Map<string, VehicleRow>();
  for (const r of rows) if (r.t <= t + 1e-9) out.set(r.vehicle, r);
  return out;
}

/**
 * Writes the scans.csv a lidar-recording runtime would (t_s,vehicle,angle_min,angle_increment,
 * ranges), computed by the project's lidar from the logged poses, every `every` seconds.
 */
export async function writeScans(runDir: string, every = 0.1): Promise<void> {
  const scenario = JSON.parse(readFileSync(join(runDir, 'scenario.resolved.json'), 'utf8')) as ResolvedScenario;
  const grid = await loadScenarioMap(scenario);
  const lidar = new Lidar(grid, { noiseStd: 0 });
  const rows = readVehicleRows(runDir);
  const byTime = new Map<number, VehicleRow[]>();
  for (const r of rows) {
    const k = Math.round(r.t / every);
    if (Math.abs(k * every - r.t) > 1e-6) continue;
    byTime.set(k, [...(byTime.get(k) ?? []), r]);
  }
  const dims = new Map(scenario.vehicles.map((v) => [v.name, v.params]));
  const lines = ['t_s,vehicle,angle_min,angle_increment,ranges'];
  for (const [, cars] of [...byTime].sort((a, b) => a[0] - b[0])) {
    for (const car of cars) {
      const others = cars.filter((o) => o !== car).map((o) => footprintCorners(o, dims.get(o.vehicle)!));
      const ranges = lidar.scan(car, others);
      lines.push(`${car.t},${car.vehicle},${lidar.angleMin},${lidar.angleIncrement},${Array.from(ranges, (r) => r.toFixed(3)).join(';')}`);
    }
  }
  writeFileSync(join(runDir, 'scans.csv'), `${lines.join('\n')}\n`);
}
