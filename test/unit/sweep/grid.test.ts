import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import { expandGrid, parseAxis, pointKey, pointOverrides, splitAxes } from '../../../src/sweep/grid.js';

describe('grid expansion', () => {
  it('crosses the axes, first axis slowest, and names points by grid index', () => {
    const axes = [parseAxis('network.delay=10,100ms'), parseAxis('vehicles.car1.start.speed=5,7,9')];
    const points = expandGrid(axes, 1, 1);
    expect(points.map((p) => [p.id, p.values['network.delay'].text, p.values['vehicles.car1.start.speed'].text])).toEqual([
      ['p000', '10ms', '5'],
      ['p001', '10ms', '7'],
      ['p002', '10ms', '9'],
      ['p003', '100ms', '5'],
      ['p004', '100ms', '7'],
      ['p005', '100ms', '9'],
    ]);
    expect(points.every((p) => p.seed === undefined)).toBe(true);
    expect(pointOverrides(points[4], ['duration=3s'])).toEqual(['duration=3s', 'network.delay=100ms', 'vehicles.car1.start.speed=7']);
  });

  it('repeats each point with seeds base, base+1, ... the same at every point', () => {
    const points = expandGrid([parseAxis('network.delay=10..30ms:10ms')], 3, 41);
    expect(points).toHaveLength(9);
    expect(points.slice(0, 3).map((p) => [p.id, p.gridIndex, p.repeat, p.seed])).toEqual([
      ['p000-r0', 0, 0, 41],
      ['p000-r1', 0, 1, 42],
      ['p000-r2', 0, 2, 43],
    ]);
    expect(points.filter((p) => p.repeat === 2).map((p) => p.seed)).toEqual([43, 43, 43]);
    expect(pointOverrides(points[1])).toEqual(['network.delay=10ms', 'seed=42']);
    expect(new Set(points.map(pointKey)).size).toBe(9);
  });

  it('widens ids past 999 points', () => {
    const points = expandGrid([parseAxis('a=1..1500:1')], 1, 1);
    expect(points[0].id).toBe('p0000');
    expect(points.at(-1)!.id).toBe('p1499');
  });

  it('keys a point by what it runs, not by its id or the order of its fields', () => {
    const a = { values: { x: { text: '1', value: 1, unit: '' }, y: { text: '2', value: 2, unit: '' } }, seed: 3 };
    const b = { values: { y: { text: '2', value: 2, unit: '' }, x: { text: '1', value: 1, unit: '' } }, seed: 3 };
    expect(pointKey(a)).toBe(pointKey(b));
    expect(pointKey(a)).not.toBe(pointKey({ ...a, seed: 4 }));
  });

  it('treats single-valued --set as fixed overrides and rejects a field swept twice', () => {
    const { swept, fixed } = splitAxes([parseAxis('network.delay=10..300ms'), parseAxis('duration=3s')]);
    expect(swept.map((a) => a.path)).toEqual(['network.delay']);
    expect(fixed).toEqual(['duration=3s']);
    expect(() => splitAxes([parseAxis('a=1,2'), parseAxis('a=3,4')])).toThrow(/swept twice/);
  });

  it('reports bad axes as user errors', () => {
    expect(() => parseAxis('network.delay')).toThrow(UserInputError);
    expect(() => parseAxis('network.delay=300..10ms')).toThrow(/backwards/);
    expect(() => expandGrid([], 0, 1)).toThrow(/--repeat 0/);
  });
});
