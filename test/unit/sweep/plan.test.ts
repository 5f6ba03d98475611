import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planSweep } from '../../../src/sweep/plan-sweep.js';
import { UserInputError } from '../../../src/errors.js';

const SCENARIO = resolve(import.meta.dirname, '../../../scenarios/head-on-brake.yaml');

describe('planning a sweep', () => {
  it('expands the grid from --set axes, keeps single values as fixed overrides, takes the seed from the scenario', async () => {
    const plan = await planSweep({ scenario: SCENARIO, sets: ['network.delay=10,300ms', 'vehicles.car1.start.speed=8..10:1', 'duration=3s'], repeat: 2, runtime: 'sim' });
    expect(plan.fixed).toEqual(['duration=3s']);
    expect(plan.axes.map((a) => a.path)).toEqual(['network.delay', 'vehicles.car1.start.speed']);
    expect(plan.baseSeed).toBe(1);
    expect(plan.mode.type === 'grid' && plan.mode.points.length).toBe(12);
    expect(plan.scenario).toBe(SCENARIO);
  });

  it('rejects every invalid value at once, before anything runs', async () => {
    const err = await planSweep({ scenario: SCENARIO, sets: ['network.delay=-5,10,-7ms'], repeat: 1, runtime: 'sim' }).catch((e) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect(err.details.join('\n')).toMatch(/network.delay=-5ms/);
    expect(err.details.join('\n')).toMatch(/network.delay=-7ms/);
    await expect(planSweep({ scenario: SCENARIO, sets: ['duration=3s'], repeat: 1, runtime: 'sim' })).rejects.toThrow(/nothing to sweep/);
  });

  it('plans a critical search with the tolerance in the range unit', async () => {
    const plan = await planSweep({ scenario: SCENARIO, sets: [], repeat: 1, runtime: 'sim', critical: { path: 'delay', range: '10..500ms', tolerance: '0.005s' } });
    expect(plan.mode).toMatchObject({ type: 'critical', path: 'network.delay', unit: 'ms', tolerance: 5, coarse: 5, lo: { value: 10 }, hi: { value: 500 } });
    await expect(planSweep({ scenario: SCENARIO, sets: [], repeat: 1, runtime: 'sim', critical: { path: 'delay', range: '10..500ms', tolerance: '5Mbps' } })).rejects.toThrow(/does not convert/);
    await expect(planSweep({ scenario: SCENARIO, sets: ['network.delay=10,20ms'], repeat: 1, runtime: 'sim', critical: { path: 'delay', range: '10..500ms', tolerance: '5ms' } })).rejects.toThrow(/both swept and searched/);
  });

  it('refuses to sweep a field the runtime ignores, since every run would be the same', async () => {
    const loss = await planSweep({ scenario: SCENARIO, sets: [], repeat: 1, runtime: 'docker', critical: { path: 'loss', range: '0..0.5', tolerance: '0.05' } }).catch((e) => e);
    expect(loss).toBeInstanceOf(UserInputError);
    expect(loss.details).toEqual([expect.stringMatching(/^network\.loss: the docker runtime ignores it .*every run would be the same$/)]);
    expect(loss.hint).toMatch(/--runtime sim/);
    await expect(planSweep({ scenario: SCENARIO, sets: ['vehicles.car1.resources.cpus=0.5,1'], repeat: 1, runtime: 'sim' })).rejects.toThrow(/ignores/);
    await expect(planSweep({ scenario: SCENARIO, sets: ['network.loss=0,0.1'], repeat: 1, runtime: 'sim' })).resolves.toBeDefined();
  });
});
