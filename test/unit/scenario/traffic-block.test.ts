import { describe, expect, it } from 'vitest';
import { footprintHitsWall } from '../../../src/core/map/wall-collision.js';
import { footprintCorners } from '../../../src/core/physics/footprint.js';
import { COMMONROAD_BMW_320I } from '../../../src/core/physics/vehicle-presets.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { loadScenarioMap } from '../../../src/scenario/scenario-map.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const { write, problems } = scenarioWorkspace('traffic');

const density = (traffic: string, extra = '') => `name: density
duration: 5s
seed: 1
network: { channel: latency, engine: builtin }
${extra}traffic:
${traffic}
`;

const HIGHWAY = `  road: { length: 2km, lanes: 3, laneWidth: 3.5m }
  density: 120/km
  speed: 25m/s
  vehicle: commonroad-bmw-320i
  apps: [ { type: beacon, rate: 10Hz, size: 190B } ]`;

describe('the traffic block', () => {
  it('writes density x length ordinary vehicles, on the generated road, keeping their lanes', async () => {
    const s = await loadScenario(write(density(HIGHWAY)));
    expect(s.vehicles).toHaveLength(240);
    expect(s.vehicles.map((v) => v.name)).toEqual(Array.from({ length: 240 }, (_, i) => `car${i}`));
    expect(s.vehicles.map((v) => v.index)).toEqual(Array.from({ length: 240 }, (_, i) => i));
    expect(s.mapFile).toBeUndefined();
    expect(s.traffic).toMatchObject({ density: 120, count: 240, first: 0, laneSpeeds: [25, 25, 25] });
    // the road runs out as far as the cars drive in 5 s
    expect(s.traffic!.road).toEqual({ length: 2000, lanes: 3, laneWidth: 3.5, runOut: 125 });
    for (const v of s.vehicles) {
      expect(v.params).toEqual(COMMONROAD_BMW_320I);
      expect(v.start).toMatchObject({ yaw: 0, speed: 25 });
      expect([-3.5, 0, 3.5]).toContain(v.start.y);
      expect(v.controller).toEqual({ type: 'lane-keeping', y: v.start.y, direction: '+x', speed: 25, lookaheadTime: 1, minLookahead: 5 });
      expect(v.apps).toEqual([{ type: 'beacon', rate: 10, size: 190, to: '*' }]);
      expect(v.lidar).toBeUndefined();
    }
    const grid = await loadScenarioMap(s);
    for (const v of s.vehicles) expect(footprintHitsWall(footprintCorners(v.start, v.params), grid)).toBe(false);
  });

  it('parks the cars without a controller when the speed is 0, and gives them no warning', async () => {
    const s = await loadScenario(write(density(HIGHWAY.replace('speed: 25m/s', 'speed: 0'))));
    expect(new Set(s.vehicles.map((v) => v.controller.type))).toEqual(new Set(['idle']));
    expect(s.vehicles.every((v) => v.start.speed === 0)).toBe(true);
    expect(s.traffic!.road.runOut).toBe(0);
    expect(s.warnings).toBeUndefined();
  });

  it('comes after the written vehicles, and --set varies its density as a sweep does', async () => {
    const file = write(
      density(HIGHWAY, 'vehicles:\n  - { name: rsu, start: { x: 1000, y: 6.5 }, params: { width: 0.5, length: 0.5 } }\n').replace(
        'laneWidth: 3.5m',
        'laneWidth: 4.5m',
      ),
    );
    const s = await loadScenario(file, { overrides: ['traffic.density=60/km'] });
    expect(s.vehicles[0].name).toBe('rsu');
    expect(s.vehicles).toHaveLength(121);
    expect(s.traffic).toMatchObject({ first: 1, count: 120 });
    expect(s.vehicles[1]).toMatchObject({ name: 'car0', index: 1 });
  });

  it('places the same cars for the same seed and others for another, with jitter', async () => {
    const jittered = density(`${HIGHWAY}\n  jitter: 0.8`);
    const starts = async (extra: string[] = []) => (await loadScenario(write(jittered), { overrides: extra })).vehicles.map((v) => v.start);
    const first = await starts();
    expect(await starts()).toEqual(first);
    expect(await starts(['seed=2'])).not.toEqual(first);
  });

  it('draws each lane a speed within the spread, shared by its cars', async () => {
    const s = await loadScenario(write(density(`${HIGHWAY}\n  speedSpread: 3m/s`)));
    const speeds = s.traffic!.laneSpeeds;
    expect(new Set(speeds).size).toBe(3);
    for (const v of speeds) expect(Math.abs(v - 25)).toBeLessThanOrEqual(3);
    for (const v of s.vehicles) expect(v.start.speed).toBe(speeds[[-3.5, 0, 3.5].indexOf(v.start.y)]);
    expect(s.traffic!.road.runOut).toBeCloseTo(Math.max(...speeds) * 5, 6);
  });

  it('says once, at the block, what no single generated car could fix', async () => {
    const found = await problems(density(`${HIGHWAY}\n  params: { C_Sf: 40 }`));
    expect(found).toEqual([
      expect.stringMatching(/^traffic\.params\.C_Sf \(line \d+\): C_Sf = 40 above C_Sr = 20\.8981 makes the car oversteer/),
    ]);
  });

  it('warns once that a car which may brake to a stop may not integrate stably at 10 ms', async () => {
    const braking = HIGHWAY.replace('apps: [', 'apps: [ { type: scripted-event, at: 2s, brake: 6 },');
    const s = await loadScenario(write(density(braking)));
    expect(s.warnings).toEqual([expect.stringMatching(/^traffic\.params \(line \d+\): at 0\.5 m\/s this car's yaw\/slip dynamics/)]);
  });

  it.each([
    [
      'cars that would overlap',
      HIGHWAY.replace('120/km', '700/km').replace('2km', '1km'),
      /^traffic\.density \(line \d+\): 700\/km puts a lane's cars 4\.274 m apart \(centre to centre\), but a commonroad-bmw-320i is 4\.508 m long and cars keep at least 1 m between bumpers; use at most 540\/km, or more lanes \(traffic\.road\.lanes\)$/,
    ],
    [
      'more cars than a scenario holds',
      HIGHWAY.replace('2km', '10km'),
      /^traffic\.density \(line \d+\): 120\/km on 10 km of road is 1200 cars, more than the 1000 a scenario holds; use at most 100\/km, or a shorter traffic\.road\.length$/,
    ],
    [
      'a road shorter than one car and its gap',
      `${HIGHWAY.replace('2km', '10m')}\n  params: { length: 12 }`,
      /^traffic\.density \(line \d+\): 120\/km puts a lane's cars 10 m apart .* 12 m long and cars keep at least 1 m between bumpers; make the road longer$/,
    ],
    [
      'a road too long',
      HIGHWAY.replace('2km', '30km'),
      /^traffic\.road\.length \(line \d+\): 30km is out of range; use a value from 10m to 20km$/,
    ],
    [
      'a density that gives no car',
      HIGHWAY.replace('120/km', '0.1/km'),
      /^traffic\.density \(line \d+\): 0\.1\/km on 2 km of road is no car; use at least 0\.5\/km, or a longer road$/,
    ],
    [
      'lanes narrower than the car',
      HIGHWAY.replace('3.5m', '1.5m'),
      /^traffic\.road\.laneWidth \(line \d+\): a 1\.5 m lane is too narrow for a commonroad-bmw-320i \(1\.61 m wide\).*use at least 1\.8m$/,
    ],
    [
      'a speed spread above the speed',
      `${HIGHWAY}\n  speedSpread: 30m/s`,
      /^traffic\.speedSpread \(line \d+\): 30 m\/s is more than the speed \(25 m\/s\).*use at most 25m\/s$/,
    ],
    [
      'a density without a unit the parser knows',
      HIGHWAY.replace('120/km', '120/mi'),
      /^traffic\.density \(line \d+\): unknown unit "\/mi" in "120\/mi"/,
    ],
  ])('refuses %s, naming the field and the fix', async (_, traffic, message) => {
    expect(await problems(density(traffic))).toEqual([expect.stringMatching(message)]);
  });

  it('refuses a run whose cars would drive off a generated map of more than 50 km', async () => {
    const found = await problems(density(HIGHWAY).replace('duration: 5s', 'duration: 3600s'));
    expect(found).toEqual([
      expect.stringMatching(
        /^traffic\.speed \(line \d+\): the fastest lane drives 90 km in the run's 3600 s, so the road's map would be 92\.04 km long/,
      ),
    ]);
  });

  it('clashing names point at the name prefix', async () => {
    const found = await problems(density(HIGHWAY, 'vehicles:\n  - { name: car3, start: { x: 1000, y: 60 } }\n'));
    expect(found).toContainEqual(
      expect.stringMatching(
        /^traffic\.namePrefix.*"car3" is already used by vehicles\[0\]; names must be unique; give traffic\.namePrefix another prefix$/,
      ),
    );
  });

  it('stands the longest car a scenario allows (30 m) at either end of the generated road', async () => {
    const long = density('  road: { length: 500m, lanes: 2, laneWidth: 3.5m }\n  density: 10/km\n  params: { length: 30 }');
    const s = await loadScenario(write(long));
    expect(Math.min(...s.vehicles.map((v) => v.start.x))).toBe(0);
  });

  it('on a given map, names a car that lands on a wall', async () => {
    const onHighway = density(
      '  road: { length: 150m, lanes: 1, laneWidth: 3.5m }\n  density: 20/km\n  vehicle: commonroad-bmw-320i',
      'map: maps/highway.yaml\n',
    );
    const found = await problems(onHighway);
    expect(found).toEqual([
      expect.stringMatching(/^traffic \(line \d+\): car2: the car at \(125, 0\) overlaps a wall or lies outside the map/),
    ]);
  });

  it('without it, a scenario still needs a map and a vehicle', async () => {
    expect(await problems('name: x\nduration: 1s\n')).toEqual([
      expect.stringMatching(/^map \(line 1\): give the map_server YAML file the cars drive on/),
      expect.stringMatching(
        /^vehicles \(line 1\): a scenario needs at least one vehicle: list them under vehicles, or generate them with a traffic: block$/,
      ),
    ]);
  });
});
