/**
 * `control-link`: what one control tick costs in CPU, the emulated runtime's limit on a machine
 * with fewer cores than cars. The simulator and vehicle programs run as host processes on loopback
 * (no Docker, no ns-3: the stadium loop, pure pursuit, no V2V), each build's vehicles launched as
 * its image launches them. This build runs twice per round, its cars on the light-car program and on
 * Node's vehicle program, side by side, with their ratio. With BENCH_OLD_BUILD (the root of another
 * checkout, built), the same run of that build (Node cars) alternates with them too.
 * BENCH_CONTROL_LINK_VEHICLES: fleet sizes (default 8,16).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';
import { loopScenarioYaml } from './sim-bench.js';
import { type ControlLinkFigures, runControlLink } from './testbed/loopback-control-link.js';
import { parseVehicleCounts } from './vehicle-scaling.js';

const SUITE = 'control-link';
const ROUNDS = 3;
const SECONDS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const builds: Array<{ label: string; root: string; light?: boolean }> = [
      { label: 'this build, light cars', root: packageRoot(), light: true },
      { label: 'this build', root: packageRoot() },
    ];
    if (process.env.BENCH_OLD_BUILD) builds.push({ label: 'old build', root: process.env.BENCH_OLD_BUILD });
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-control-link-bench-'));
    const rows: BenchRow[] = [];
    try {
      for (const n of parseVehicleCounts(process.env.BENCH_CONTROL_LINK_VEHICLES, [8, 16])) {
        writeFileSync(join(dir, `loop-${n}.yaml`), loopScenarioYaml(n, `${SECONDS}s`));
        const scenario = await loadScenario(join(dir, `loop-${n}.yaml`));
        const measured = new Map<string, ControlLinkFigures[]>(builds.map((b) => [b.label, []]));
        for (let round = 0; round < ROUNDS; round++) {
          for (const b of round % 2 ? [...builds].reverse() : builds)
            measured.get(b.label)!.push(await runControlLink(b.root, scenario, { light: b.light }));
        }
        for (const b of builds) {
          const runs = measured.get(b.label)!;
          const name = (what: string) => `${n} cars, ${b.label}: ${what}`;
          rows.push({
            suite: SUITE,
            name: name('vehicle CPU per tick'),
            value: median(runs.map((r) => r.vehicleCpuPerTickUs)),
            unit: 'us',
          });
          rows.push({
            suite: SUITE,
            name: name('simulator CPU per step'),
            value: median(runs.map((r) => r.simulatorCpuPerStepUs)),
            unit: 'us',
          });
          rows.push({
            suite: SUITE,
            name: name('late drive commands'),
            value: 100 * median(runs.map((r) => r.lateCommandFraction)),
            unit: '%',
            note: runs.map((r) => r.status).join(' '),
          });
        }
        const ratio = (a: string, b: string, pick: (r: ControlLinkFigures) => number) =>
          median(measured.get(a)!.map(pick)) / median(measured.get(b)!.map(pick));
        const lightOverNode = ratio('this build, light cars', 'this build', (r) => r.vehicleCpuPerTickUs);
        rows.push({ suite: SUITE, name: `${n} cars: vehicle CPU, light/Node`, value: lightOverNode, unit: 'x' });
        if (measured.has('old build')) {
          rows.push({
            suite: SUITE,
            name: `${n} cars: vehicle CPU, this/old`,
            value: ratio('this build', 'old build', (r) => r.vehicleCpuPerTickUs),
            unit: 'x',
          });
          rows.push({
            suite: SUITE,
            name: `${n} cars: simulator CPU, this/old`,
            value: ratio('this build', 'old build', (r) => r.simulatorCpuPerStepUs),
            unit: 'x',
          });
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
