import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createIdleCollector } from '../../../src/runtime/emulated/containers/idle-collector.js';
import { startSimulatorProcess } from '../../../src/runtime/emulated/containers/simulator-process.js';
import type { WallClock } from '../../../src/runtime/emulated/containers/wall-clock.js';
import { BridgeClient } from '../../../src/runtime/rosbridge/bridge-client.js';
import { TOPICS } from '../../../src/runtime/rosbridge/control-topics.js';
import { MSG_TYPES, stringMsg } from '../../../src/runtime/rosbridge/ros-messages.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { prepareRunDir, repoRoot } from './support.js';

/** Virtual time: sleeping jumps to the target; every reading after a step's start costs `stepCostNs`. */
function virtualClock(stepCostNs: bigint): WallClock {
  let now = 1_000_000_000_000n;
  return {
    nowNs: () => (now += stepCostNs),
    sleepUntil: async (target) => {
      if (target > now) now = target;
      await new Promise((r) => setImmediate(r));
    },
  };
}

async function runOneSecond(clock: WallClock, collectGarbage: () => void): Promise<number> {
  const scenario = await loadScenario(join(repoRoot, 'scenarios/head-on-brake.yaml'), { overrides: ['duration=1s'] });
  const runDir = prepareRunDir(scenario);
  dirs.push(runDir);
  const sim = await startSimulatorProcess({
    runDir,
    runId: 'idle-gc',
    bind: { host: '127.0.0.1', port: 0 },
    clock,
    collectGarbage,
    stopGraceMs: 10,
  });
  const client = await BridgeClient.connect(`ws://127.0.0.1:${sim.port}`);
  client.advertise(TOPICS.simControl, MSG_TYPES.string);
  client.publish(TOPICS.simControl, stringMsg(JSON.stringify({ cmd: 'start', t0_epoch_ns: (clock.nowNs() + 1_000_000n).toString() })));
  const { summary } = await sim.finished;
  await client.close();
  return summary.steps;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the simulator collects young garbage between physics steps', () => {
  it('every fifth step when the step left time to spare', async () => {
    let calls = 0;
    const steps = await runOneSecond(virtualClock(1_000n), () => calls++);
    expect(steps).toBe(100);
    expect(calls).toBe(20);
  });

  it('never when a step used up its slack, so a late run is not made later', async () => {
    let calls = 0;
    const steps = await runOneSecond(virtualClock(3_500_000n), () => calls++);
    expect(steps).toBe(100);
    expect(calls).toBe(0);
  });

  it('has a collector on this Node, and it runs', () => {
    const gc = createIdleCollector();
    expect(gc).toBeTypeOf('function');
    expect(() => gc!()).not.toThrow();
  });
});
