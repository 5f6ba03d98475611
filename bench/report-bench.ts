import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runScenarioSimulated } from '../src/api/run-simulated.js';
import { writeRunReport } from '../src/ui/report/report.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';

const SUITE = 'report';
const PLATOON = join(packageRoot(), 'scenarios/platoon-cacc.yaml');
const SHORT_S = 60;
const LONG_S = 600;

/** Seconds `cavsim report` takes for one platoon run (6 cars, beacons) of `duration` s. */
async function reportSeconds(dir: string, duration: number): Promise<number> {
  const run = await runScenarioSimulated(PLATOON, { runsDir: dir, overrides: [`duration=${duration}s`, 'record.mcap=false'] });
  const started = performance.now();
  await writeRunReport(run.runDir);
  return (performance.now() - started) / 1000;
}

/** A run's figures should cost in proportion to its length at most: a long run once took minutes. */
export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-report-'));
    try {
      await reportSeconds(dir, 10); // loads the renderers
      const short = await reportSeconds(dir, SHORT_S);
      const long = await reportSeconds(dir, LONG_S);
      const row = (name: string, value: number, unit: string, target?: string): BenchRow => ({
        suite: SUITE,
        name,
        value,
        unit,
        ...(target ? { target } : {}),
      });
      return [
        row(`figures of a ${SHORT_S} s platoon run, 6 cars (s)`, short, 's'),
        row(`figures of a ${LONG_S} s platoon run, 6 cars (s)`, long, 's'),
        row(`${LONG_S} s over ${SHORT_S} s (${LONG_S / SHORT_S}x the data)`, long / short, 'ratio', `<= ${LONG_S / SHORT_S}`),
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
