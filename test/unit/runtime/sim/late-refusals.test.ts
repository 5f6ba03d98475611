import { describe, expect, it } from 'vitest';
import { loadMap } from '../../../../src/core/map/load-map.js';
import type { Recorder } from '../../../../src/measurement/recorder.js';
import { RefusalLog } from '../../../../src/measurement/refusal-log.js';
import { ownCodeDriver } from '../../../../src/runtime/sim/car-drivers.js';
import type { LinkRefusal } from '../../../../src/runtime/sim/own-code/own-code-link.js';
import type { VehicleCode } from '../../../../src/runtime/sim/own-code/vehicle-code.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { World } from '../../../../src/world/world.js';
import { scenarioWorkspace } from '../../../support/scenario-workspace.js';

const { write } = scenarioWorkspace('late-refusals');

/** Own code whose link refuses what it sends after the last tick: once before the run ends, once while it is told to stop. */
function lateRefusingCode(): VehicleCode & { refused: LinkRefusal[] } {
  const refused: LinkRefusal[] = [];
  return {
    name: 'car0',
    refused,
    whenReady: async () => {},
    start: () => {},
    tick: () => Promise.reject(new Error('no tick in this test')),
    collided: () => {},
    takeRefusals: () => refused.splice(0),
    close: async () => {
      refused.push({ reason: 'bad-request', detail: { reason: 'not JSON' }, count: 3 });
    },
  };
}

describe('refusals that arrive after the last tick', () => {
  it('are recorded when the car is closed, at the run’s end time, not lost', async () => {
    const scenario = await loadScenario(
      write(`name: t\nmap: maps/open.yaml\nduration: 1s\nvehicles:\n  - name: car0\n    start: { x: 0, y: 0 }\n    command: ["true"]\n`),
    );
    const world = new World(scenario, await loadMap(scenario.mapFile!));
    for (let i = 0; i < 10; i++) world.step();
    const code = lateRefusingCode();
    const events: string[] = [];
    const refusals = new RefusalLog((t, car, event) => events.push(`${t.toFixed(2)} ${car} ${event}`));
    const recorder = { recordEvent: () => {} } as unknown as Recorder;
    const driver = ownCodeDriver(world, world.cars[0], [], code, recorder, new Map(), () => false, refusals);
    // after the last tick, before the run closes its cars
    code.refused.push({ reason: 'not-allowed', detail: { topic: '/sim_control' }, count: 1 });
    await driver.close!('the run ended');
    const figures = refusals.figures()!;
    const at = world.time;
    expect(figures.cars.car0.by_reason).toEqual({
      'not-allowed': { count: 1, first_t_s: at, last_t_s: at },
      'bad-request': { count: 3, first_t_s: at, last_t_s: at },
    });
    expect(figures.cars.car0.refused).toBe(4);
    expect(events).toEqual([`${at.toFixed(2)} car0 refused`, `${at.toFixed(2)} car0 refused`]);
  });
});
