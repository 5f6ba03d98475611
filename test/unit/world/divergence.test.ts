import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runResolvedSimulated, runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { UserInputError } from '../../../src/errors.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';

const LOOP = fileURLToPath(new URL('../../../scenarios/loop-pure-pursuit.yaml', import.meta.url));
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-diverged-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

/** f1tenth_gym's model is unstable reversing faster than 0.5 m/s with the wheels turned, whatever the parameters. */
const REVERSE_TURNING = 'vehicles.car0.controller={type: open-loop, schedule: [{t: 0s, speed: -5, steer: 0.4}]}';

/** Validation refuses that schedule; the run-time guard is for what validation cannot foresee, so go around it. */
async function divergingScenario() {
  const scenario = await loadScenario(LOOP, { overrides: ['duration=10s'] });
  scenario.vehicles[0].controller = { type: 'open-loop', schedule: [{ t: 0, speed: -5, steer: 0.4 }] };
  return scenario;
}

describe('physics that diverges', () => {
  it('fails the run, says which car and when, keeps what it measured', async () => {
    const { summary, runDir } = await runResolvedSimulated(await divergingScenario(), { runsDir });
    expect(summary.status).toBe('failed');
    expect(summary.exit_status).toBe(5);
    expect(summary.reason).toMatch(
      /^car0's physics diverged in step \d+ \(t=\d+\.\d\d s: yawRate = [\d.e+-]+\): the single-track model cannot integrate what this car did$/,
    );
    expect(summary.hint).toMatch(/vehicles\.car0\.params/);
    expect(summary.steps).toBeGreaterThan(5);
    const rows = readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n').slice(1);
    expect(rows.length).toBe(summary.steps + 1);
    expect(rows.join('\n')).not.toMatch(/NaN|Infinity/);
  });

  it.each([['vehicles.car0.params.I=0.0001'], ['vehicles.car0.params.C_Sf=1000'], [REVERSE_TURNING], ['vehicles.car0.start.speed=-1']])(
    '%s: refused before the run starts',
    async (override) => {
      const before = readdirSync(runsDir).length;
      const err = await runScenarioSimulated(LOOP, { overrides: [override, 'duration=10s'], runsDir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UserInputError);
      expect((err as UserInputError).details.join('\n')).toMatch(
        /^vehicles\.car0\.(params\.(I|C_Sf)|controller\.schedule|start\.speed) \(from --set\): /,
      );
      expect(readdirSync(runsDir).length).toBe(before);
    },
  );

  it('f1tenth_gym defaults stay sane for the whole run', async () => {
    const { summary } = await runScenarioSimulated(LOOP, { overrides: ['duration=10s'], runsDir });
    expect(summary.status).toBe('completed');
  });
});
