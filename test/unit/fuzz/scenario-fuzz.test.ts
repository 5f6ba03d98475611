import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runResolvedSimulated } from '../../../src/api/run-simulated.js';
import { cachingMapLoader } from '../../../src/core/map/map-loader.js';
import { F1TENTH_DEFAULT_PARAMS } from '../../../src/core/physics/defaults.js';
import { EXIT_STATUS, exitStatusOf } from '../../../src/errors.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { type Mutation, mutatedScenario, randomAssignment, randomFeatureAssignment } from './scenario-mutations.js';

/**
 * Mutates the shipped scenarios and `--set` assignments at random (fixed seed) and checks what a
 * researcher is promised: every input is either refused as bad input (exit 2, nothing created) or
 * runs to a finite, completed result. Anything else (a bug status, a throw, NaN) fails with the case.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Scenarios whose cars run their own code start real processes per case, and those with an external
// device wait for one: test/integration/own-code and test/integration/external cover them.
const SCENARIOS = readdirSync(join(ROOT, 'scenarios')).filter(
  (f) => f.endsWith('.yaml') && !/^\s+(command|external):/m.test(readFileSync(join(ROOT, 'scenarios', f), 'utf8')),
);
const work = mkdtempSync(join(tmpdir(), 'cavsim-fuzz-'));
beforeAll(() => {
  for (const folder of ['scenarios', 'maps']) cpSync(join(ROOT, folder), join(work, folder), { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));
const loadMap = cachingMapLoader();
/** Short runs: divergence shows within a second of simulated time, and a few hundred cases must stay quick. */
const RUN_SECONDS = 0.5;
/** CI uses the fixed seed; CAVSIM_FUZZ_SEED and CAVSIM_FUZZ_RUNS explore further by hand. */
const FUZZ_SEED = Number(process.env.CAVSIM_FUZZ_SEED ?? 20261123);
const FUZZ_RUNS = Number(process.env.CAVSIM_FUZZ_RUNS ?? 200);

interface Tally {
  refused: number;
  completed: number;
  /** Warned of, ran, and failed as diverged, naming the car and the step. */
  diverged: number;
  byField: Map<string, number>;
}
const tally: Tally = { refused: 0, completed: 0, diverged: 0, byField: new Map() };

async function tryCase(base: string, mutations: Mutation[], overrides: string[], numbersOnly: boolean): Promise<void> {
  const original = parse(readFileSync(join(ROOT, 'scenarios', base), 'utf8'));
  // Every vehicle parameter written out, so numeric edits reach the physics too.
  if (numbersOnly) original.physics = { ...original.physics, params: { ...F1TENTH_DEFAULT_PARAMS } };
  const file = join(work, 'scenarios', 'fuzzed.yaml');
  writeFileSync(file, stringify(mutatedScenario(original, mutations, numbersOnly), { aliasDuplicateObjects: false }));
  const runsDir = join(work, 'runs');
  try {
    let scenario;
    try {
      scenario = await loadScenario(file, { overrides, runtime: 'sim', loadMap });
    } catch (err) {
      expect(exitStatusOf(err), `${String(err)}\n${(err as Error).stack}`).toBe(EXIT_STATUS.USER_INPUT);
      expect(existsSync(runsDir), 'a refused scenario created a run folder').toBe(false);
      tally.refused++;
      const field = ((err as { details?: string[] }).details?.[0] ?? '').split(/[ :]/)[0];
      tally.byField.set(field, (tally.byField.get(field) ?? 0) + 1);
      return;
    }
    scenario.duration = Math.min(scenario.duration, RUN_SECONDS);
    const { summary, runDir } = await runResolvedSimulated(scenario, { runsDir, loadMap });
    // A car validation warned may not integrate stably may diverge: then the run fails, naming it.
    const warned = scenario.warnings?.some((w) => /may diverge/.test(w)) === true;
    if (warned && summary.status === 'failed') {
      expect(summary.reason).toMatch(/physics diverged in step \d+/);
      tally.diverged++;
      return;
    }
    expect(summary.status, `${summary.reason}`).toBe('completed');
    for (const line of readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n').slice(1)) {
      const numbers = line.split(',').slice(2).map(Number);
      expect(numbers.every(Number.isFinite), `non-finite state: ${line}`).toBe(true);
    }
    tally.completed++;
  } finally {
    rmSync(file, { force: true });
    rmSync(runsDir, { recursive: true, force: true });
  }
}

const mutationArb = (actions: fc.Arbitrary<number>, scale: number) =>
  fc.record({ at: fc.nat(), action: actions, value: fc.nat(), scale: fc.double({ min: -scale, max: scale, noNaN: true }) });

async function fuzz(
  name: string,
  runs: number,
  numbersOnly: boolean,
  caseArb: fc.Arbitrary<{ base: string; mutations: Mutation[]; sets: [number, number][] }>,
  assign = randomAssignment,
) {
  Object.assign(tally, { refused: 0, completed: 0, diverged: 0, byField: new Map() });
  await fc.assert(
    fc.asyncProperty(caseArb, async ({ base, mutations, sets }) => {
      await tryCase(
        base,
        mutations,
        sets.map(([p, v]) => assign(p, v)),
        numbersOnly,
      );
    }),
    { seed: FUZZ_SEED, numRuns: runs, endOnFailure: true },
  );
  const fields = [...tally.byField.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
  process.stdout.write(
    `fuzz (${name}): ${tally.refused} refused, ${tally.completed} ran, ${tally.diverged} diverged (warned); most refused: ${fields.map(([f, n]) => `${f} ${n}`).join(', ')}\n`,
  );
  expect(tally.refused + tally.completed + tally.diverged).toBe(runs);
}

describe('fuzz: mutated scenarios and --set values are refused as bad input or run finite', () => {
  it(`${FUZZ_RUNS} hostile cases (wrong types, odd values, deleted and unknown fields, --set) from seed ${FUZZ_SEED}`, async () => {
    const caseArb = fc.record({
      base: fc.constantFrom(...SCENARIOS),
      mutations: fc.array(mutationArb(fc.nat(), 6), { minLength: 1, maxLength: 3 }),
      sets: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 2 }),
    });
    await fuzz('hostile', FUZZ_RUNS, false, caseArb);
  }, 600_000);

  it(`${FUZZ_RUNS} cases setting the newer features' fields (lidar, recording, compute, channels, platoons) from seed ${FUZZ_SEED}`, async () => {
    const caseArb = fc.record({
      base: fc.constantFrom(...SCENARIOS),
      mutations: fc.constant([] as Mutation[]),
      sets: fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }),
    });
    await fuzz('features', FUZZ_RUNS, false, caseArb, randomFeatureAssignment);
    expect(tally.completed).toBeGreaterThan(FUZZ_RUNS / 10);
  }, 600_000);

  it(`${FUZZ_RUNS} plausible cases (numbers, vehicle parameters included, scaled up to 100x either way) from seed ${FUZZ_SEED}`, async () => {
    const caseArb = fc.record({
      base: fc.constantFrom(...SCENARIOS),
      mutations: fc.array(mutationArb(fc.constant(2), 2), { minLength: 1, maxLength: 4 }),
      sets: fc.constant([] as [number, number][]),
    });
    await fuzz('plausible', FUZZ_RUNS, true, caseArb);
    expect(tally.completed).toBeGreaterThan(FUZZ_RUNS / 4);
  }, 600_000);
});
