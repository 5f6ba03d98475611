import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runResolvedSimulated } from '../src/api/run-simulated.js';
import { createCommandRunner } from '../src/host/exec/command-runner.js';
import { loadScenario } from '../src/scenario/load-scenario.js';
import type { ResolvedScenario } from '../src/scenario/resolved.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';
import { loopScenarioYaml } from './sim-bench.js';

const ROOT = packageRoot();
const PAIRS = 11;
const IN_PROCESS_WARM_UP = 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Median of paired ratios: runs with and without the recording alternate, so drift hits both, and
 * which goes first alternates too (a run pays for what the one before it left behind). `warmUp`
 * pairs go first unmeasured: in process, a short run's code is still being compiled for about ten runs.
 */
export async function pairedRatio(
  run: (mcap: boolean) => Promise<number>,
  warmUp: number,
): Promise<{ ratio: number; withMs: number; withoutMs: number }> {
  for (let i = 0; i < warmUp; i++) {
    await run(true);
    await run(false);
  }
  const ratios: number[] = [];
  const withMs: number[] = [];
  const withoutMs: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const recordFirst = i % 2 === 0;
    const first = await run(recordFirst);
    const second = await run(!recordFirst);
    const [a, b] = recordFirst ? [first, second] : [second, first];
    withMs.push(a);
    withoutMs.push(b);
    ratios.push(a / b);
  }
  return { ratio: median(ratios), withMs: median(withMs), withoutMs: median(withoutMs) };
}

async function inProcess(scenario: ResolvedScenario, dir: string) {
  return pairedRatio(async (mcap) => {
    const started = performance.now();
    await runResolvedSimulated({ ...scenario, record: { scans: false, mcap } }, { runsDir: join(dir, 'runs') });
    return performance.now() - started;
  }, IN_PROCESS_WARM_UP);
}

/** `cavsim up --runtime sim` as a user types it, with and without `record.mcap`. */
async function wholeCommand(dir: string) {
  const runner = createCommandRunner();
  return pairedRatio(async (mcap) => {
    const started = performance.now();
    await runner.run([
      process.execPath,
      join(ROOT, 'dist/cli/main.js'),
      'up',
      join(ROOT, 'scenarios/head-on-brake.yaml'),
      '--runtime',
      'sim',
      '--runs-dir',
      join(dir, 'cli'),
      '--json',
      '--set',
      `record.mcap=${mcap}`,
    ]);
    return performance.now() - started;
  }, 1);
}

const row = (name: string, r: { ratio: number; withMs: number; withoutMs: number }): BenchRow => ({
  suite: 'mcap',
  name,
  value: r.ratio,
  unit: 'x',
  target: '<= 1.2x',
  note: `${r.withMs.toFixed(0)} vs ${r.withoutMs.toFixed(0)} ms, medians of ${PAIRS} pairs`,
});

export const suite: BenchSuite = {
  name: 'mcap',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-mcap-'));
    try {
      const headOn = await loadScenario(join(ROOT, 'scenarios/head-on-brake.yaml'));
      writeFileSync(join(dir, 'loop.yaml'), loopScenarioYaml(2, '60s'));
      const loop = await loadScenario(join(dir, 'loop.yaml'));
      return [
        row('cavsim up head-on-brake, whole command, mcap/none', await wholeCommand(dir)),
        row('head-on-brake in process (5 s, 2 cars), mcap/none', await inProcess(headOn, dir)),
        row('loop track in process (60 s, 2 cars), mcap/none', await inProcess(loop, dir)),
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
