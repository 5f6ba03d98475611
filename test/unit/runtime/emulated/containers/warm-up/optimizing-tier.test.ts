import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gainsFromOptimizingTier } from '../../../../../../src/runtime/emulated/containers/warm-up/optimizing-tier.js';
import { loadScenario } from '../../../../../../src/scenario/load-scenario.js';

const scenario = (file: string) => loadScenario(resolve(import.meta.dirname, '../../../../../../scenarios', file));

describe('gainsFromOptimizingTier', () => {
  it('is false for a pure-pursuit car with no lidar and no apps: its tick is the control link', async () => {
    const s = await scenario('loop-pure-pursuit.yaml');
    const light = s.vehicles.filter((v) => !v.lidar && v.apps.length === 0);
    expect(light.length).toBeGreaterThan(0);
    for (const v of light) expect(gainsFromOptimizingTier(v)).toBe(false);
  });

  it('is true for a car with a lidar, a planner, a scan-driven controller or V2X apps', async () => {
    for (const file of ['loop-rrt.yaml', 'loop-gap-follow.yaml', 'loop-wall-follow.yaml', 'head-on-brake.yaml']) {
      const s = await scenario(file);
      for (const v of s.vehicles) expect(gainsFromOptimizingTier(v), `${file} ${v.name}`).toBe(true);
    }
  });
});
