import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runResolvedSimulated } from '../src/api/run-simulated.js';
import { LockstepProcessPool } from '../src/channel/ns3/lockstep/process-pool.js';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { packageRoot } from '../src/util/package-root.js';
import { interpolatedQuantile } from '../src/util/percentile.js';
import type { BenchRow, BenchSuite } from './main.js';
import { loopScenarioYaml } from './sim-bench.js';

const HEAD_ON = join(packageRoot(), 'scenarios/head-on-brake.yaml');
const SUITE = 'channel-engines';
const REPEATS = 5;

/**
 * Simulated seconds per wall-clock second of a whole run, median of REPEATS after one run that is
 * not counted (it warms Node's compiler up for this scenario, as any run after a sweep's first
 * finds it). `cold`: every run starts its own ns-3 process, as a single `cavsim up` does;
 * otherwise runs reuse the process the previous one served, as a sweep's runs do.
 */
async function realTimeMultiple(file: string, overrides: string[], cold = false): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-'));
  try {
    const scenario = await loadScenario(file, { overrides, runtime: 'sim' });
    const multiples: number[] = [];
    // Without a pool each run starts and ends its own ns-3 process.
    using pool = new LockstepProcessPool();
    for (let i = -1; i < REPEATS; i++) {
      const started = performance.now();
      const { summary } = await runResolvedSimulated(scenario, { runsDir: join(dir, 'runs'), ...(cold ? {} : { lockstepPool: pool }) });
      if (summary.status !== 'completed') throw new Error(`bench run ${summary.status}: ${summary.reason}`);
      if (i >= 0) multiples.push(summary.sim_time_s / ((performance.now() - started) / 1000));
    }
    return interpolatedQuantile(
      multiples.sort((a, b) => a - b),
      0.5,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `body` with ns-3 started by Node's own spawn (which forks Node) instead of posix_spawn. */
async function withNodeSpawn<T>(body: () => Promise<T>): Promise<T> {
  const before = process.env.CAVSIM_PROCESS_START;
  process.env.CAVSIM_PROCESS_START = 'node';
  try {
    return await body();
  } finally {
    if (before === undefined) delete process.env.CAVSIM_PROCESS_START;
    else process.env.CAVSIM_PROCESS_START = before;
  }
}

/** Ten cars on the loop track, each beaconing 300 B at 10 Hz, on the given network block. */
function beaconingLoop(dir: string, network: string): string {
  const file = join(dir, `beacons-${network.replace(/\W+/g, '-')}.yaml`);
  const yaml = loopScenarioYaml(10, '30s', { apps: '[{ type: beacon, rate: 10Hz, size: 300B }]' }).replace(
    '\nvehicles:\n',
    `\nnetwork: ${network}\nvehicles:\n`,
  );
  writeFileSync(file, yaml);
  return file;
}

export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const rows: BenchRow[] = [];
    await realTimeMultiple(HEAD_ON, ['network.engine=ns3']); // compiles the channel program once
    const builtinHeadOn = await realTimeMultiple(HEAD_ON, ['network.engine=builtin']);
    const coldHeadOn = await realTimeMultiple(HEAD_ON, ['network.engine=ns3'], true);
    const coldHeadOnNodeSpawn = await withNodeSpawn(() => realTimeMultiple(HEAD_ON, ['network.engine=ns3'], true));
    const warmHeadOn = await realTimeMultiple(HEAD_ON, ['network.engine=ns3']);
    rows.push({
      suite: SUITE,
      name: 'head-on-brake, csma, ns-3 lock-step, a new ns-3 process per run (x real time)',
      value: coldHeadOn,
      unit: 'x',
      target: '>= 100x',
    });
    rows.push({
      suite: SUITE,
      name: "head-on-brake, csma, ns-3 lock-step, a new ns-3 process per run started with Node's spawn (x real time)",
      value: coldHeadOnNodeSpawn,
      unit: 'x',
    });
    rows.push({
      suite: SUITE,
      name: "head-on-brake, new ns-3 process, posix_spawn / Node's spawn speed",
      value: coldHeadOn / coldHeadOnNodeSpawn,
      unit: 'ratio',
    });
    rows.push({
      suite: SUITE,
      name: 'head-on-brake, csma, ns-3 lock-step, process reused as in a sweep (x real time)',
      value: warmHeadOn,
      unit: 'x',
    });
    rows.push({ suite: SUITE, name: 'head-on-brake, csma, builtin (x real time)', value: builtinHeadOn, unit: 'x' });
    rows.push({ suite: SUITE, name: 'head-on-brake, ns-3 new process / builtin speed', value: coldHeadOn / builtinHeadOn, unit: 'ratio' });
    rows.push({
      suite: SUITE,
      name: 'head-on-brake, ns-3 reused process / builtin speed',
      value: warmHeadOn / builtinHeadOn,
      unit: 'ratio',
    });

    const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-'));
    try {
      const wifi = await realTimeMultiple(beaconingLoop(dir, '{ channel: wifi-80211p }'), [], true);
      rows.push({
        suite: SUITE,
        name: '10 cars beaconing 10 Hz, wifi-80211p, ns-3 lock-step (x real time)',
        value: wifi,
        unit: 'x',
        target: '>= 20x',
      });
      const latencyNs3 = await realTimeMultiple(beaconingLoop(dir, '{ channel: latency, engine: ns3 }'), [], true);
      const latencyBuiltin = await realTimeMultiple(beaconingLoop(dir, '{ channel: latency, engine: builtin }'), []);
      rows.push({ suite: SUITE, name: '10 cars beaconing 10 Hz, latency, ns-3 lock-step (x real time)', value: latencyNs3, unit: 'x' });
      rows.push({ suite: SUITE, name: '10 cars beaconing 10 Hz, latency, builtin (x real time)', value: latencyBuiltin, unit: 'x' });
      rows.push({
        suite: SUITE,
        name: '10 cars beaconing, latency, ns-3 / builtin speed',
        value: latencyNs3 / latencyBuiltin,
        unit: 'ratio',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
