import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rehearseBridge } from '../../../../../../src/runtime/emulated/containers/warm-up/bridge-rehearsal.js';
import { loadScenario } from '../../../../../../src/scenario/load-scenario.js';

const scenario = (file: string) => loadScenario(resolve(import.meta.dirname, '../../../../../../scenarios', file));

describe('rehearseBridge', () => {
  it('has every scratch car answer every step, on two scratch bridges', async () => {
    const s = await scenario('loop-pure-pursuit.yaml');
    expect(await rehearseBridge(s, { cars: 3, steps: 40, budgetMs: 60_000 })).toBe(80);
  });

  it('works with fewer cars in the scenario than asked for', async () => {
    const s = await scenario('head-on-brake.yaml');
    expect(await rehearseBridge(s, { cars: 8, steps: 10, budgetMs: 60_000 })).toBe(20);
  });

  it('stops at its time budget', async () => {
    const s = await scenario('head-on-brake.yaml');
    expect(await rehearseBridge(s, { cars: 2, steps: 1_000_000, budgetMs: 60 })).toBeLessThan(2_000_000);
  });
});
