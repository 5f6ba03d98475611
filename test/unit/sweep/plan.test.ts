import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import { planSweep } from '../../../src/sweep/plan-sweep.js';

const SCENARIO = resolve(import.meta.dirname, '../../../scenarios/head-on-brake.yaml');

describe('planning a sweep', () => {
  it('expands the grid from --set axes, keeps single values as fixed overrides, takes the seed from the scenario', async () => {
    const plan = await planSweep({
      scenario: SCENARIO,
      sets: ['network.delay=10,300ms', 'vehicles.car1.start.speed=8..10:1', 'duration=3s'],
      repeat: 2,
      runtime: 'sim',
    });
    expect(plan.fixed).toEqual(['duration=3s']);
    expect(plan.axes.map((a) => a.path)).toEqual(['network.delay', 'vehicles.car1.start.speed']);
    expect(plan.baseSeed).toBe(1);
    expect(plan.mode.type === 'grid' && plan.mode.points.length).toBe(12);
    expect(plan.scenario).toBe(SCENARIO);
  });

  it('rejects every invalid value at once, before anything runs', async () => {
    const err = await planSweep({ scenario: SCENARIO, sets: ['network.delay=-5,10,-7ms'], repeat: 1, runtime: 'sim' }).catch((e) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect(err.details).toEqual([expect.stringMatching(/^network\.delay=-5ms, -7ms: /)]);
    await expect(planSweep({ scenario: SCENARIO, sets: ['duration=3s'], repeat: 1, runtime: 'sim' })).rejects.toThrow(/nothing to sweep/);
  });

  it('a delay grid knows the step its runs can tell apart: the control tick (10 ms in head-on-brake)', async () => {
    const plan = await planSweep({ scenario: SCENARIO, sets: ['network.delay=10..300ms:10ms'], repeat: 1, runtime: 'sim' });
    expect(plan.mode.type === 'grid' && plan.mode.resolution).toBe(10);
  });

  it('a range without a unit is one error, not one per value', async () => {
    const err = await planSweep({ scenario: SCENARIO, sets: ['network.delay=10..300'], repeat: 1, runtime: 'sim' }).catch((e) => e);
    expect(err.details).toEqual([
      'network.delay=10, 42.222222, …, 300 (10 values): network.delay (from --set): "10" has no unit; write it like "10ms" (units: ns, us, ms, s, min)',
    ]);
  });

  it('plans a critical search with the tolerance in the range unit', async () => {
    const plan = await planSweep({
      scenario: SCENARIO,
      sets: [],
      repeat: 1,
      runtime: 'sim',
      critical: { path: 'delay', range: '10..500ms', tolerance: '0.005s' },
    });
    expect(plan.mode).toMatchObject({
      type: 'critical',
      path: 'network.delay',
      unit: 'ms',
      tolerance: 5,
      coarse: 5,
      lo: { value: 10 },
      hi: { value: 500 },
    });
    await expect(
      planSweep({
        scenario: SCENARIO,
        sets: [],
        repeat: 1,
        runtime: 'sim',
        critical: { path: 'delay', range: '10..500ms', tolerance: '5Mbps' },
      }),
    ).rejects.toThrow(/does not convert/);
    await expect(
      planSweep({
        scenario: SCENARIO,
        sets: ['network.delay=10,20ms'],
        repeat: 1,
        runtime: 'sim',
        critical: { path: 'delay', range: '10..500ms', tolerance: '5ms' },
      }),
    ).rejects.toThrow(/both swept and searched/);
  });

  it('refuses to sweep a field the runtime ignores, since every run would be the same', async () => {
    const engine = await planSweep({ scenario: SCENARIO, sets: ['network.engine=ns3,builtin'], repeat: 1, runtime: 'docker' }).catch(
      (e) => e,
    );
    expect(engine).toBeInstanceOf(UserInputError);
    expect(engine.details).toEqual([
      expect.stringMatching(/^network\.engine: the docker runtime ignores it .*every run would be the same$/),
    ]);
    await expect(
      planSweep({
        scenario: SCENARIO,
        sets: [],
        repeat: 1,
        runtime: 'docker',
        critical: { path: 'loss', range: '0..0.5', tolerance: '0.05' },
      }),
    ).resolves.toBeDefined();
    await expect(
      planSweep({ scenario: SCENARIO, sets: ['vehicles.car1.resources.cpus=0.5,1'], repeat: 1, runtime: 'sim' }),
    ).rejects.toThrow(/ignores/);
    await expect(planSweep({ scenario: SCENARIO, sets: ['network.loss=0,0.1'], repeat: 1, runtime: 'sim' })).resolves.toBeDefined();
  });

  it('refuses, while planning, a swept channel the runtime cannot run', async () => {
    const err = await planSweep({ scenario: SCENARIO, sets: ['network.channel=csma,wifi-80211p'], repeat: 1, runtime: 'docker' }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(UserInputError);
    expect(err.details.join('\n')).toMatch(/network\.channel=wifi-80211p: network\.(delay|channel|dataRate)/);
  });

  it('carries the warnings for fixed fields the runtime ignores into grid.json', async () => {
    const plan = await planSweep({
      scenario: SCENARIO,
      sets: ['network.delay=10,20ms', 'vehicles.car1.resources.cpus=0.5'],
      repeat: 1,
      runtime: 'sim',
    });
    expect(plan.warnings).toEqual([expect.stringMatching(/^vehicles\.car1\.resources \(from --set\): ignored: CPU and memory limits/)]);
  });

  it('refuses a sweep of more than 100,000 runs, naming the count and its factors, before the scenario is read', async () => {
    const nowhere = '/no/such/scenario.yaml';
    const grid = await planSweep({
      scenario: nowhere,
      sets: ['network.delay=10..300ms:10ms', 'vehicles.car1.start.speed=1..10:0.01'],
      repeat: 10,
      runtime: 'sim',
    }).catch((e) => e);
    expect(grid).toBeInstanceOf(UserInputError);
    expect(grid.message).toBe(
      'the sweep would plan 270,300 runs (30 values of network.delay × 901 values of vehicles.car1.start.speed × --repeat 10); a sweep plans at most 100,000',
    );
    expect(grid.hint).toMatch(/a larger step/);
    await expect(planSweep({ scenario: nowhere, sets: [], delay: '10..300ms', repeat: 10_001, runtime: 'sim' })).rejects.toThrow(
      '--repeat 10001: give a whole number from 1 to 10,000',
    );
    await expect(planSweep({ scenario: nowhere, sets: [], delay: '10..20ms:10ms', repeat: 1e12, runtime: 'sim' })).rejects.toThrow(
      /--repeat 1000000000000/,
    );
    await expect(
      planSweep({
        scenario: nowhere,
        sets: [],
        repeat: 3,
        runtime: 'sim',
        critical: { path: 'delay', range: '10..500ms', tolerance: '5ms', coarse: 50_000 },
      }),
    ).rejects.toThrow('the sweep would plan 150,000 runs (--coarse 50000 × --repeat 3)');
  });

  it('names --delay, not --set, in a problem with the delay values', async () => {
    await expect(planSweep({ scenario: SCENARIO, sets: [], delay: '300..10ms', repeat: 1, runtime: 'sim' })).rejects.toThrow(
      /^--delay: "300..10ms": the range runs backwards/,
    );
    await expect(
      planSweep({ scenario: SCENARIO, sets: ['network.delay=1,2ms'], delay: '10..300ms', repeat: 1, runtime: 'sim' }),
    ).rejects.toThrow(/swept twice/);
  });

  it('refuses a tolerance finer than the 6 decimals values are kept to (the search could not reach it)', async () => {
    const critical = (tolerance: string) =>
      planSweep({ scenario: SCENARIO, sets: [], repeat: 1, runtime: 'sim', critical: { path: 'delay', range: '10..500ms', tolerance } });
    await expect(critical('1e-9ms')).rejects.toThrow('--tolerance 1e-9ms: finer than the 0.000001ms to which values are kept');
    await expect(critical('0ms')).rejects.toThrow(/must be greater than zero/);
    await expect(critical('-5ms')).rejects.toThrow(/must be greater than zero/);
  });
});
