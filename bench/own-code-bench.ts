import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenarioSimulated } from '../src/api/run-simulated.js';
import { packageRoot } from '../src/util/package-root.js';
import { interpolatedQuantile } from '../src/util/percentile.js';
import type { BenchRow, BenchSuite } from './main.js';

const SUITE = 'own-code';
const REPEATS = 3;
const ROOT = packageRoot();
const NODE_EXAMPLE = join(ROOT, 'containers/examples/node-vehicle/vehicle.mjs');
const DURATION_S = 5;

/** `n` cars in a row on the highway at 5 m/s: the Node.js example each (`ownCode`), or cavsim's idle controller. */
function rowOfCars(dir: string, n: number, ownCode: boolean): string {
  const cars = Array.from({ length: n }, (_, i) => {
    const code = ownCode ? `\n    command: [node, ${NODE_EXAMPLE}, --speed, "5"]` : '';
    return `  - name: car${i}\n    start: { x: ${-90 + 9 * i}, y: -1, yaw: 0, speed: 5 }${code}`;
  });
  const file = join(dir, `row-${n}-${ownCode ? 'own' : 'builtin'}.yaml`);
  writeFileSync(
    file,
    `name: row-${n}\nmap: ${join(ROOT, 'maps/highway.yaml')}\nduration: ${DURATION_S}s\nnetwork: { channel: latency, engine: builtin }\nvehicles:\n${cars.join('\n')}\n`,
  );
  return file;
}

/** Median wall time of a whole run [s] and its answer time per tick [ms, median over cars' p50s]. */
async function timeRuns(file: string, runsDir: string): Promise<{ wallS: number; answerMs?: number }> {
  const walls: number[] = [];
  let answerMs: number | undefined;
  for (let i = 0; i < REPEATS; i++) {
    const { summary } = await runScenarioSimulated(file, { runsDir });
    if (summary.status !== 'completed') throw new Error(`bench run ${summary.status}: ${summary.reason}`);
    walls.push(summary.wall_time_s);
    const compute = (summary.timing as { compute?: Record<string, { answer: { p50_ms: number } | null }> } | undefined)?.compute;
    const p50s = Object.values(compute ?? {}).flatMap((c) => (c.answer ? [c.answer.p50_ms] : []));
    if (p50s.length)
      answerMs = interpolatedQuantile(
        p50s.sort((a, b) => a - b),
        0.5,
      );
  }
  return {
    wallS: interpolatedQuantile(
      walls.sort((a, b) => a - b),
      0.5,
    ),
    ...(answerMs !== undefined ? { answerMs } : {}),
  };
}

/**
 * Own vehicle code in virtual time: how much faster than real time a run is when every car is a
 * Node.js process behind a tick barrier, beside the same cars driven in-process, and what the
 * barrier costs per tick (the difference of the two, per physics step; all cars answer in parallel).
 */
export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const rows: BenchRow[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-own-'));
    try {
      const runsDir = join(dir, 'runs');
      const steps = DURATION_S / 0.01;
      for (const n of [2, 10]) {
        const own = await timeRuns(rowOfCars(dir, n, true), runsDir);
        const builtin = await timeRuns(rowOfCars(dir, n, false), runsDir);
        rows.push({
          suite: SUITE,
          name: `${n} cars, own code (Node.js example) (x real time)`,
          value: DURATION_S / own.wallS,
          unit: 'x',
          note: 'includes starting the processes',
        });
        rows.push({
          suite: SUITE,
          name: `${n} cars, cavsim's controller in-process (x real time)`,
          value: DURATION_S / builtin.wallS,
          unit: 'x',
        });
        rows.push({
          suite: SUITE,
          name: `${n} cars, barrier overhead per tick (all cars)`,
          value: ((own.wallS - builtin.wallS) / steps) * 1000,
          unit: 'ms',
        });
        if (own.answerMs !== undefined)
          rows.push({ suite: SUITE, name: `${n} cars, one car's answer time per tick, median`, value: own.answerMs, unit: 'ms' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
