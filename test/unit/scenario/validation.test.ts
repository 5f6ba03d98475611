import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const { dir, problems: problemsWith } = scenarioWorkspace('validate');

const good = `name: t
map: maps/corridor.yaml
duration: 2s
vehicles:
  - name: car0
    start: { x: -20, y: -1, yaw: 0, speed: 10 }
    observes: [car1]
    controller: { type: pure-pursuit, waypoints: maps/corridor.lane0-east.csv }
    apps: [{ type: ttc-brake-sender, threshold: 700ms, to: car1 }]
  - name: car1
    start: { x: 20, y: -1, yaw: 3.14159, speed: 10 }
    apps: [{ type: brake-receiver }]
`;

const problems = (yaml: string, overrides: string[] = []) => problemsWith(yaml, { overrides });

describe('scenario validation', () => {
  it('accepts the good file and resolves units to SI', async () => {
    expect(await problems(good)).toEqual([]);
    const file = join(dir, 'good.yaml');
    writeFileSync(file, good);
    const s = await loadScenario(file, { overrides: ['network.delay=250ms', 'vehicles.car1.start.speed=7'] });
    expect(s.duration).toBe(2);
    expect(s.network).toMatchObject({ dataRate: 100e6 });
    expect('delay' in s.network && s.network.delay).toBeCloseTo(0.25, 12);
    expect(s.vehicles[1].start.speed).toBe(7);
    expect(s.vehicles[0].apps[0]).toMatchObject({ type: 'ttc-brake-sender', threshold: 0.7 });
    expect(s.vehicles[0].params.a_max).toBeGreaterThan(0);
    expect(s.vehicles[0].controller.type === 'pure-pursuit' && s.vehicles[0].controller.waypoints.length).toBeGreaterThan(10);
  });

  const table: [string, string, string[]][] = [
    [
      'unknown key, with its line',
      good.replace('duration: 2s', 'duration: 2s\nspeedd: 3'),
      ['speedd (line 4): unknown field "speedd"; did you mean "seed"?'],
    ],
    [
      'a duration without unit',
      good.replace('duration: 2s', 'duration: 2'),
      ['duration (line 3): "2" has no unit; write it like "10ms" (units: ns, us, ms, s, min)'],
    ],
    [
      'a wrong unit',
      good.replace('duration: 2s', 'duration: 2furlongs'),
      ['duration (line 3): unknown unit "furlongs" in "2furlongs"; use one of ns, us, ms, s, min (e.g. "10ms")'],
    ],
    [
      'an out-of-range delay',
      good.replace('duration: 2s', 'duration: 2s\nnetwork: { delay: 20s }'),
      ['network.delay (line 4): 20s is out of range; use a value from 0ms to 10s'],
    ],
    [
      'a bad data rate',
      good.replace('duration: 2s', 'duration: 2s\nnetwork: { dataRate: 100MB }'),
      ['network.dataRate (line 4): unknown unit "MB" in "100MB"; use one of bps, kbps, mbps, gbps (e.g. "100Mbps")'],
    ],
    [
      'a missing map file',
      good.replace('maps/corridor.yaml', 'maps/nowhere.yaml'),
      [
        `map (line 2): file maps/nowhere.yaml not found (resolved to ${join(dir, 'maps/nowhere.yaml')}); paths are relative to the scenario file`,
      ],
    ],
    [
      'a missing waypoint file',
      good.replace('corridor.lane0-east.csv', 'gone.csv'),
      [
        `vehicles.car0.controller.waypoints (line 8): file maps/gone.csv not found (resolved to ${join(dir, 'maps/gone.csv')}); paths are relative to the scenario file`,
      ],
    ],
    [
      'an unknown controller type',
      good.replace('type: pure-pursuit', 'type: warp-drive'),
      [
        'vehicles.car0.controller.type (line 8): "warp-drive" is not a known type; use one of pure-pursuit, open-loop, idle, lane-keeping, gap-follow, wall-follow, rrt',
      ],
    ],
    [
      'a negative friction',
      good.replace('start: { x: 20', 'params: { mu: -1 }\n    start: { x: 20'),
      ['vehicles.car1.params.mu (line 11): the number -1 is too small; use more than 0'],
    ],
    [
      'an observed car that does not exist',
      good.replace('observes: [car1]', 'observes: [car9]'),
      ['vehicles.car0.observes[0] (line 7): no vehicle named "car9"; use one of car0, car1'],
    ],
    [
      'duplicate names',
      good.replace('name: car1', 'name: car0').replace(/observes: \[car1\]\n.*\n.*\n/, 'controller: { type: idle }\n'),
      ['vehicles[1].name (line 8): "car0" is already used by vehicles[0]; names must be unique'],
    ],
    [
      'a start inside a wall',
      good.replace('x: 20, y: -1', 'x: 20, y: 5'),
      ['vehicles.car1.start (line 11): the car at (20, 5) overlaps a wall or lies outside the map; move it onto free ground'],
    ],
    [
      'two cars on top of each other',
      good.replace('x: 20, y: -1', 'x: -20.2, y: -1'),
      ['vehicles.car1.start (line 11): the car overlaps car0 at the start; move them apart'],
    ],
    [
      'a bad vehicle name',
      good.replace('name: car1', 'name: Car 1').replace('to: car1', 'to: "*"').replace('observes: [car1]', 'observes: []'),
      ['vehicles[1].name (line 10): "Car 1" is not allowed; use 1-12 lowercase letters and digits starting with a letter, e.g. car0'],
    ],
  ];

  it.each(table)('reports %s', async (_name, yaml, expected) => {
    expect(await problems(yaml)).toEqual(expected);
  });

  it('reports several problems together', async () => {
    const found = await problems(good.replace('duration: 2s', 'duration: 2').replace('threshold: 700ms', 'threshold: fast'));
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^duration \(line 3\)/);
    expect(found[1]).toMatch(/^vehicles\.car0\.apps\[0\]\.threshold \(line 9\): "fast" is not a duration/);
  });

  it('reports bad --set assignments', async () => {
    expect(await problems(good, ['network.delay'])).toEqual(['--set network.delay: write it as path=value, e.g. network.delay=100ms']);
    expect(await problems(good, ['vehicles.car7.start.x=1'])).toEqual([
      '--set vehicles.car7.start.x: no element named "car7" in vehicles; did you mean "car0"? (names: car0, car1)',
    ]);
    expect(await problems(good, ['network.delay=5parsecs'])).toEqual([
      'network.delay (from --set): unknown unit "parsecs" in "5parsecs"; use one of ns, us, ms, s, min (e.g. "10ms")',
    ]);
  });

  it('reports YAML syntax errors with the line', async () => {
    const found = await problems('name: x\nvehicles: [\n');
    expect(found[0]).toMatch(/^line \d+: /);
  });
});
