import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { loadScenario } from '../../../../../src/scenario/load-scenario.js';
import { warmUpVehicle } from '../../../../../src/runtime/emulated/containers/vehicle-warm-up.js';

const scenario = (file: string) => loadScenario(resolve(import.meta.dirname, '../../../../../scenarios', file));

describe('warmUpVehicle', () => {
  it('ticks every car of the head-on scenario the requested number of times', async () => {
    const s = await scenario('head-on-brake.yaml');
    for (const v of s.vehicles) expect(warmUpVehicle(s, v, { ticks: 50, budgetMs: 60_000 })).toBe(50);
  });

  it('stops at its time budget', async () => {
    const s = await scenario('loop-rrt.yaml');
    expect(warmUpVehicle(s, s.vehicles[0], { ticks: 1_000_000, budgetMs: 20 })).toBeLessThan(1_000_000);
  });

  it('works on its own copy of the apps: the scenario is unchanged afterwards', async () => {
    const s = await scenario('mixed-four.yaml');
    const before = JSON.stringify(s);
    for (const v of s.vehicles) expect(warmUpVehicle(s, v, { ticks: 30, budgetMs: 60_000 })).toBe(30);
    expect(JSON.stringify(s)).toBe(before);
  });
});
