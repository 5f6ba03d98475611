import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { packageRoot } from '../../../src/util/package-root.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

/** Every malformed input found by trying cavsim as a new user: each is refused, located and explained. */
const { dir, write } = scenarioWorkspace('malformed');

const good = `name: t
map: maps/corridor.yaml
duration: 2s
seed: 1
vehicles:
  - name: car0
    start: { x: -20, y: -1, yaw: 0, speed: 10 }
    controller: { type: pure-pursuit, waypoints: maps/corridor.lane0-east.csv }
  - name: car1
    start: { x: 20, y: -1, yaw: 3.14159, speed: 10 }
    controller: { type: idle }
`;

async function refusal(
  content: string | Buffer,
  overrides: string[] = [],
  name = `s-${Math.random().toString(36).slice(2)}.yaml`,
): Promise<string> {
  const file = name.endsWith('/') ? join(dir, name) : write(content, name);
  try {
    await loadScenario(file, { overrides });
  } catch (err) {
    expect(err).toBeInstanceOf(UserInputError);
    const e = err as UserInputError;
    return [e.message, ...e.details, e.hint ?? ''].join('\n');
  }
  throw new Error('accepted');
}

const bomb = [
  'extra:',
  '  a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
  ...Array.from({ length: 9 }, (_, i) => `  a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
].join('\n');

describe('malformed scenarios are refused with the field, the line and the fix', () => {
  it.each([
    ['a YAML alias bomb', `${good + bomb}\n`, /line 14: its aliases \(\*name\) expand too many times.*allows 1000/],
    [
      'an undefined alias',
      good.replace('map: maps/corridor.yaml', 'map: *nomap'),
      /line 2: \*nomap refers to no anchor; define &nomap before it/,
    ],
    [
      'a number where text belongs',
      good.replace('name: t', 'name: 123'),
      /^name \(line 1\): expected text, got the number 123; quote it \("123"\)/m,
    ],
    [
      '.inf as a duration',
      good.replace('duration: 2s', 'duration: .inf'),
      /^duration \(line 3\): expected a duration such as "10ms", got \.inf/m,
    ],
    ['.nan as the seed', good.replace('seed: 1', 'seed: .nan'), /^seed \(line 4\): expected a number, got \.nan \(not a number\)/m],
    ['a fractional seed', good.replace('seed: 1', 'seed: 1.5'), /^seed \(line 4\): 1\.5 is not a whole number/m],
    ['a word as a coordinate', good.replace('x: -20', 'x: five'), /^vehicles\.car0\.start\.x \(line 7\): expected a number, got "five"/m],
    [
      'a car name as the vehicle list',
      `${good.split('vehicles:')[0]}vehicles: car0\n`,
      /^vehicles \(line 5\): expected a list, got "car0"/m,
    ],
    [
      'a list as the duration',
      good.replace('duration: 2s', 'duration: [1, 2]'),
      /^duration \(line 3\): expected a duration such as "10ms", got a list of 2/m,
    ],
    [
      'a missing duration',
      good.replace('duration: 2s\n', ''),
      /^duration.*: is required: give a duration such as "10ms" \(how long the experiment runs\)/m,
    ],
    [
      'an open loop without schedule',
      good.replace('controller: { type: idle }', 'controller: { type: open-loop }'),
      /^vehicles\.car1\.controller\.schedule \(line 11\): is required: give a file name or a list/m,
    ],
    [
      'a negative schedule time',
      good.replace('controller: { type: idle }', 'controller: { type: open-loop, schedule: [{ t: -1s, speed: 1, steer: 0 }] }'),
      /^vehicles\.car1\.controller\.schedule\[0\]\.t \(line 11\): -1s is out of range/m,
    ],
    ['an empty file', '', /the file is empty; a scenario needs at least name, map, duration and vehicles/],
    ['a list at the top', '- a\n- b\n', /a scenario is a mapping of fields .* but the file holds a list of 2/],
    ['a mistyped field', good.replace('seed: 1', 'sed: 1'), /^sed \(line 4\): unknown field "sed"; did you mean "seed"\?/m],
    [
      'a mistyped controller',
      good.replace('type: idle', 'type: pure-persuit'),
      /"pure-persuit" is not a known type; did you mean "pure-pursuit"\?/,
    ],
  ])('%s', async (_name, yaml, expected) => {
    expect(await refusal(yaml)).toMatch(expected);
  });

  it('a UTF-16 file gets an encoding hint', async () => {
    const text = await refusal(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(good, 'utf16le')]));
    expect(text).toMatch(/is UTF-16 encoded; scenarios are UTF-8 text/);
    expect(text).toMatch(/iconv -f UTF-16 -t UTF-8/);
  });

  it('a binary file is refused without echoing its bytes', async () => {
    const text = await refusal(Buffer.from(Array.from({ length: 2816 }, (_, i) => i % 256)));
    expect(text).toMatch(/is not a text file \(control byte 0x00 at offset 0\)/);
    expect(text.length).toBeLessThan(300);
  });

  it('a folder given as the scenario says so and names a file in it', async () => {
    mkdirSync(join(dir, 'study'), { recursive: true });
    writeFileSync(join(dir, 'study', 'head-on.yaml'), good);
    const text = await refusal('', [], 'study/');
    expect(text).toMatch(/is a folder, not a scenario file/);
    expect(text).toMatch(/study\/head-on\.yaml/);
  });

  it.each([
    ['map.foo=1', /--set map\.foo: map is a single value \("maps\/corridor\.yaml"\), it has no field "foo"; set map=VALUE instead/],
    ['vehicles.car0.start.x.y=1', /--set vehicles\.car0\.start\.x\.y: vehicles\.car0\.start\.x is a single value \(-20\)/],
    ['network.delay=', /--set network\.delay=: no value after "="; give one, e.g\. network\.delay=100ms/],
    ['vehicles.car0.start.x=1e999', /vehicles\.car0\.start\.x \(from --set\): expected a number, got \.inf/],
    ['vehicles.car0.start.sped=5', /vehicles\.car0\.start\.sped \(from --set\): unknown field "sped"; did you mean "speed"\?/],
    ['network.dealy=5ms', /unknown field "dealy"; did you mean "delay"\?/],
    ['vehicles.carO.start.x=1', /no element named "carO" in vehicles; did you mean "car0"\? \(names: car0, car1\)/],
    ['physics.integrator=rk5', /physics\.integrator \(from --set\): "rk5" is not allowed; did you mean "rk4"\? use one of rk4, euler/],
    [
      'vehicles.car0.start.*=1',
      /--set vehicles\.car0\.start\.\*: vehicles\.car0\.start is not a list, so "\*" matches nothing; name a field instead/,
    ],
    ['lights.*.x=1', /--set lights\.\*\.x: lights is not a list \(it is not in this scenario\), so "\*" matches nothing/],
  ])('--set %s', async (assignment, expected) => {
    expect(await refusal(good, [assignment])).toMatch(expected);
  });

  it('--set vehicles.*... on a platoon scenario, which has no vehicles list, names the platoon fields to set instead', async () => {
    const err = await loadScenario(join(packageRoot(), 'scenarios/platoon-cacc-cam.yaml'), {
      overrides: ['vehicles.*.apps.cacc.maxAge=0.3s'],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect((err as UserInputError).details.join('\n')).toMatch(
      /set platoon\.leader\.apps\.cacc\.maxAge or platoon\.follower\.apps\.cacc\.maxAge instead/,
    );
    const set = await loadScenario(join(packageRoot(), 'scenarios/platoon-cacc-cam.yaml'), {
      overrides: ['platoon.follower.apps.cacc.maxAge=0.3s'],
    });
    expect(
      set.vehicles
        .slice(1)
        .map((v) => v.apps.find((a) => a.type === 'cacc'))
        .map((a) => (a as { maxAge?: number }).maxAge),
    ).toEqual([0.3, 0.3, 0.3, 0.3, 0.3]);
  });
});
