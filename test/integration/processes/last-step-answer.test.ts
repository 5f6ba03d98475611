import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatorProcess } from '../../../src/runtime/emulated/containers/simulator-process.js';
import type { WallClock } from '../../../src/runtime/emulated/containers/wall-clock.js';
import { BridgeClient } from '../../../src/runtime/rosbridge/bridge-client.js';
import { TOPICS } from '../../../src/runtime/rosbridge/control-topics.js';
import { driveMsg, MSG_TYPES, parseOdometryMsg, stringMsg } from '../../../src/runtime/rosbridge/ros-messages.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { prepareRunDir, repoRoot } from './support.js';

/** Virtual time: sleeping jumps to the target, so every answer arrives "at once" whatever the machine does. */
function virtualClock(): WallClock {
  let now = 1_000_000_000_000n;
  return {
    nowNs: () => (now += 1_000n),
    sleepUntil: async (target) => {
      if (target > now) now = target;
      await new Promise((r) => setImmediate(r));
    },
  };
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('drive commands the simulator counts in the control lag', () => {
  it('counts an answer to a step that has a next one, and not the answer to the last odometry, which no step applies', async () => {
    const scenario = await loadScenario(join(repoRoot, 'scenarios/head-on-brake.yaml'), { overrides: ['duration=1s'] });
    const runDir = prepareRunDir(scenario);
    dirs.push(runDir);
    const clock = virtualClock();
    const sim = await startSimulatorProcess({ runDir, runId: 'last-step', bind: { host: '127.0.0.1', port: 0 }, clock, stopGraceMs: 50 });
    const car = scenario.vehicles[0].name;
    const stepNs = BigInt(Math.round(scenario.physics.timestep * 1e9));
    const answered = [50n * stepNs, 100n * stepNs];
    const client = await BridgeClient.connect(`ws://127.0.0.1:${sim.port}`);
    client.advertise(TOPICS.drive(car), MSG_TYPES.drive);
    client.subscribe(TOPICS.odom(car), MSG_TYPES.odometry, (m) => {
      const { stampNs } = parseOdometryMsg(m);
      if (answered.includes(stampNs))
        client.publish(TOPICS.drive(car), driveMsg({ speed: 1, steer: 0 }, stampNs, `${car}/base_link`) as never);
    });
    client.advertise(TOPICS.simControl, MSG_TYPES.string);
    client.publish(TOPICS.simControl, stringMsg(JSON.stringify({ cmd: 'start', t0_epoch_ns: (clock.nowNs() + 1_000_000n).toString() })));
    const { summary } = await sim.finished;
    await client.close();
    expect(summary.steps).toBe(100);
    const timing = summary.timing as { control_commands: number; drive_commands_by_car: Record<string, { received: number }> };
    expect(timing.control_commands).toBe(1);
    expect(timing.drive_commands_by_car[car].received).toBe(1);
    // Both answers are in compute.csv: nothing measured is dropped.
    const computed = readFileSync(join(runDir, 'compute.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',').slice(0, 3).join(','));
    expect(computed).toEqual([`50,0.5,${car}`, `100,1,${car}`]);
  });
});
