import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_STATUS, UserInputError } from '../../../src/errors.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const MAPS = fileURLToPath(new URL('../../../maps/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cavsim-params-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** head-on-brake.yaml with its map and waypoint paths made absolute, so the copy can live anywhere. */
const headOn = readFileSync(join(SCENARIOS, 'head-on-brake.yaml'), 'utf8').replaceAll('../maps/', MAPS);

/** The scenario with `params` added to car1, and the line they land on. */
function withCar1Params(params: string, physics = ''): { yaml: string; line: number } {
  const yaml = headOn.replace('  - name: car1\n', `  - name: car1\n    params: ${params}\n`) + physics;
  return { yaml, line: yaml.split('\n').indexOf(`    params: ${params}`) + 1 };
}

async function refusal(yaml: string): Promise<UserInputError> {
  const file = join(dir, `s-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const err = await loadScenario(file).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UserInputError);
  expect(EXIT_STATUS[(err as UserInputError).code]).toBe(2);
  return err as UserInputError;
}

describe('vehicle parameters no real car has are refused at validation; a step that may not integrate them is warned of', () => {
  it.each([
    ['{ I: 0.0001 }', 'I', /^0\.0001 kg m² does not fit a car of m = 3\.74 kg .*; use I from 0\.047 to 0\.4 kg m²/],
    ['{ C_Sf: 1000 }', 'C_Sf', /^1000 is out of range; use a value from 0\.1 to 50 1\/rad/],
    ['{ lf: 1e-300 }', 'lf', /^1e-300 is out of range; use a value from 0\.01 to 5 m/],
    ['{ m: 100000, I: 1e-9 }', 'm', /^100000 is out of range; use a value from 0\.1 to 5000 kg/],
  ])('%s', async (params, field, message) => {
    const { yaml, line } = withCar1Params(params);
    const { details } = await refusal(yaml);
    expect(details).toHaveLength(1);
    const prefix = `vehicles.car1.params.${field} (line ${line}): `;
    expect(details[0].startsWith(prefix)).toBe(true);
    expect(details[0].slice(prefix.length)).toMatch(message);
  });

  it('warns of a timestep that may be too long for the car, saying which one is safe, and runs it', async () => {
    const { yaml, line } = withCar1Params('{ C_Sf: 40, C_Sr: 40 }');
    const file = join(dir, 'stiff.yaml');
    writeFileSync(file, yaml);
    const scenario = await loadScenario(file);
    expect(scenario.warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^vehicles\\.car1\\.params \\(line ${line}\\): at 0\\.5 m/s .* to be safe use physics\\.timestep: 1\\.3ms or less$`),
      ),
    ]);
    writeFileSync(file, yaml.replace('duration: 5s', 'duration: 5s\nphysics: { timestep: 1.3ms }'));
    expect((await loadScenario(file)).warnings).toBeUndefined();
  });

  it('points at physics.params when the scenario-wide value is out of range', async () => {
    const yaml = headOn.replace('duration: 5s', 'duration: 5s\nphysics:\n  params: { C_Sf: 1000 }');
    const { details } = await refusal(yaml);
    expect(details).toEqual([
      `physics.params.C_Sf (line 9): 1000 is out of range; use a value from 0.1 to 50 1/rad (lateral force per unit load per radian of slip; real tyres lie within 3 to 30)`,
    ]);
  });

  it("accepts f1tenth_gym's own defaults with euler at 10 ms, as the gym runs them, warning for each car", async () => {
    const file = join(dir, 'euler.yaml');
    writeFileSync(file, headOn.replace('duration: 5s', 'duration: 5s\nphysics: { integrator: euler }'));
    const scenario = await loadScenario(file);
    expect(scenario.physics).toMatchObject({ integrator: 'euler', timestep: 0.01 });
    expect(scenario.warnings).toHaveLength(2); // both cars
    expect(scenario.warnings![0]).toMatch(
      /^vehicles\.car0\.params \(line \d+\): .* to be safe use physics\.timestep: 7\.2ms or less, or physics\.integrator: rk4, or I of at least 0\.072 kg m²$/,
    );
  });

  it('accepts every shipped scenario', async () => {
    for (const name of readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml'))) {
      await expect(loadScenario(join(SCENARIOS, name)), name).resolves.toBeDefined();
    }
  });
});
