import { resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { sweepAnswer } from '../../../src/sweep/answer.js';
import { expandGrid, parseAxis, zipAxes } from '../../../src/sweep/grid.js';
import { planSweep } from '../../../src/sweep/plan-sweep.js';
import { resultFromSummary } from '../../../src/sweep/result-row.js';
import type { SweepSpec } from '../../../src/sweep/sweep-folder.js';
import { axisColumn, columnPaths, pointsCsv, summaryCsv } from '../../../src/sweep/tables.js';
import { parseSweepValues } from '../../../src/sweep/values.js';

const HEAD_ON = resolve(import.meta.dirname, '../../../scenarios/head-on-brake.yaml');
const DENSITY = resolve(import.meta.dirname, '../../../scenarios/density-highway.yaml');
const flagOf = (path: string) => `--set ${path}`;

describe('--zip: swept fields that advance together', () => {
  const delay = parseAxis('network.delay=10,100,200ms');
  const loss = parseAxis('network.loss=0,0.1,0.2');
  const speed = parseAxis('vehicles.car1.start.speed=8,10');

  it('pairs the i-th values of the zipped fields into one axis, crossed with the other axes', () => {
    const axes = zipAxes([delay, loss], [], flagOf);
    expect(axes).toHaveLength(1);
    const points = expandGrid(axes, 1, 1);
    expect(points.map((p) => `${p.values['network.delay'].text}/${p.values['network.loss'].text}`)).toEqual([
      '10ms/0',
      '100ms/0.1',
      '200ms/0.2',
    ]);
    const named = zipAxes([delay, speed, loss], ['network.delay', 'network.loss'], flagOf);
    expect(named.map((a) => a.path)).toEqual(['network.delay', 'vehicles.car1.start.speed']);
    expect(expandGrid(named, 1, 1)).toHaveLength(6);
  });

  it('refuses zipped fields of different lengths, naming each flag and its count, and a zip of fewer than two fields', () => {
    const err = (() => {
      try {
        zipAxes([delay, speed], [], (p) => (p === 'network.delay' ? '--delay' : `--set ${p}`));
      } catch (e) {
        return e as UserInputError;
      }
    })();
    expect(err).toBeInstanceOf(UserInputError);
    expect(err?.details).toEqual(['--delay: 3 values', '--set vehicles.car1.start.speed: 2 values']);
    expect(() => zipAxes([delay], [], flagOf)).toThrow(/two or more swept fields/);
    expect(() => zipAxes([delay, loss], ['network.delay', 'network.jitter'], flagOf)).toThrow(/network\.jitter is not swept/);
  });

  it('is one axis for the answer (path and values joined by +) and two columns in the tables', async () => {
    const plan = await planSweep({
      scenario: HEAD_ON,
      delay: '10,100,200ms',
      sets: ['network.loss=0,0.1,0.2'],
      zip: ['delay', 'network.loss'],
      repeat: 1,
      runtime: 'sim',
    });
    const spec: SweepSpec = { ...plan, schema: 'cavsim.sweep/1', id: 'z', created: '' };
    expect(columnPaths(spec)).toEqual(['network.delay', 'network.loss']);
    const points = plan.mode.type === 'grid' ? plan.mode.points : [];
    expect(points).toHaveLength(3);
    const results = points.map((p) =>
      resultFromSummary(
        p,
        p.id,
        {
          status: 'completed',
          seed: 1,
          sim_time_s: 5,
          wall_time_s: 0,
          min_ttc_s: 1,
          min_distance_m: 1,
          collision: p.values['network.delay'].value! >= 100,
          first_collision_t_s: null,
          v2v: { sent: 0, received: 0, lost: 0, p50_ms: null, p99_ms: null },
        } as unknown as RunSummary,
        'runs/x',
      ),
    );
    const answer = sweepAnswer(spec, results);
    expect(answer.text).toBe('no collision up to 10ms+0, collisions from 100ms+0.1 (network.delay+network.loss)');
    expect(answer.criteria[0]).toMatchObject({
      path: 'network.delay+network.loss',
      curve: [{ last_ok: '10ms+0', first_fail: '100ms+0.1' }],
    });
    // a search can narrow one field, not a pair: no suggestion
    expect(answer.narrow).toBeUndefined();
    const rows = parse(pointsCsv(spec, results), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r['network.delay_ms'], r['network.loss'], r.collisions])).toEqual([
      ['10', '0', '0'],
      ['100', '0.1', '1'],
      ['200', '0.2', '1'],
    ]);
    expect(summaryCsv(spec, results).split('\n')[0]).toContain('network.delay_ms,network.loss,status');
  });
});

describe('a density axis', () => {
  it('reads densities as numbers with their unit, lists and ranges alike', () => {
    const list = parseSweepValues('20,40,80veh/km');
    expect(list.ok && list.values.map((v) => [v.text, v.value, v.unit])).toEqual([
      ['20veh/km', 20, 'veh/km'],
      ['40veh/km', 40, 'veh/km'],
      ['80veh/km', 80, 'veh/km'],
    ]);
    const range = parseSweepValues('30..90/km:30veh/km');
    expect(range.ok && range.values.map((v) => v.text)).toEqual(['30/km', '60/km', '90/km']);
    expect(axisColumn('traffic.density', [{ values: { 'traffic.density': list.ok ? list.values[0] : undefined } } as never])).toBe(
      'traffic.density_veh_per_km',
    );
  });

  it('sweeps traffic.density on a scenario with a traffic: block, and --find-critical density searches it', async () => {
    const plan = await planSweep({ scenario: DENSITY, density: '20,40veh/km', sets: [], repeat: 1, runtime: 'sim' });
    expect(plan.axes.map((a) => a.path)).toEqual(['traffic.density']);
    const search = await planSweep({
      scenario: DENSITY,
      sets: [],
      repeat: 1,
      runtime: 'sim',
      critical: { path: 'density', range: '20..200/km', tolerance: '10veh/km' },
      criteria: ['delivery<0.9'],
    });
    expect(search.mode).toMatchObject({ type: 'critical', path: 'traffic.density', unit: '/km', tolerance: 10 });
  });

  it('is refused on a scenario without a traffic: block, naming the flag and the fix, before anything loads', async () => {
    const err = await planSweep({ scenario: HEAD_ON, density: '20,40veh/km', sets: [], repeat: 1, runtime: 'sim' }).catch((e) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect(err.message).toMatch(/^--density: .*head-on-brake\.yaml has no traffic: block/);
    expect(err.hint).toContain('scenarios/density-highway.yaml');
    const viaSet = await planSweep({ scenario: HEAD_ON, sets: ['traffic.density=20,40/km'], repeat: 1, runtime: 'sim' }).catch((e) => e);
    expect(viaSet.message).toMatch(/^--set traffic\.density: /);
  });
});
