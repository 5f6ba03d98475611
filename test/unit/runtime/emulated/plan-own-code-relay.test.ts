import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSimulatorEnv } from '../../../../src/runtime/emulated/containers/process-env.js';
import { planEmulatedRun } from '../../../../src/runtime/emulated/plan-emulated.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { packageRoot } from '../../../../src/util/package-root.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-plan-relay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function plan() {
  const file = join(dir, 's.yaml');
  writeFileSync(
    file,
    `name: relay-plan
map: ${join(packageRoot(), 'maps/corridor.yaml')}
duration: 2s
vehicles:
  - name: car0
    start: { x: 10, y: -1 }
  - name: car1
    start: { x: -20, y: -1 }
    command: [python3, car.py]
`,
  );
  return planEmulatedRun(await loadScenario(file, { runtime: 'docker' }), '20261129-000000-abcd', join(dir, 'run'));
}

describe('the plan of an emulated run with an own-code car', () => {
  it('knows the car’s V2V relay by its address and privileged source port, and tells the simulator', async () => {
    const p = await plan();
    const env = p.simulator.env!;
    const car1 = p.vehicles.find((v) => v.vehicle === 'car1')!;
    const clients = JSON.parse(env.CAVSIM_CLIENTS) as Record<string, string>;
    expect(clients[`${car1.ip}:907`]).toBe('car1');
    expect(clients[car1.ip!]).toBe('car1');
    expect(JSON.parse(env.CAVSIM_V2V_RELAYS)).toEqual([`${car1.ip}:907`]);
    expect(readSimulatorEnv({ ...env, CAVSIM_RUN_DIR: '/run' }).v2vRelays).toEqual([`${car1.ip}:907`]);
  });

  it('starts the own code without the right to bind a privileged port; its relay and cavsim’s vehicles keep it', async () => {
    const p = await plan();
    expect(p.vehicles.find((v) => v.vehicle === 'car1')!.capDrop).toEqual(['NET_RAW', 'NET_BIND_SERVICE']);
    expect(p.vehicles.find((v) => v.vehicle === 'car0')!.capDrop).toEqual(['NET_RAW']);
    expect(p.v2vRelays.map((r) => [r.vehicle, r.capDrop])).toEqual([['car1', ['NET_RAW']]]);
  });

  it('refuses a relay list that is not JSON addresses with ports', () => {
    expect(() => readSimulatorEnv({ CAVSIM_RUN_DIR: '/run', CAVSIM_V2V_RELAYS: '["10.0.0.1"]' })).toThrow(
      'CAVSIM_V2V_RELAYS must be a JSON array of "address:port"',
    );
  });
});
