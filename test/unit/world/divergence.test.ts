import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';

const LOOP = fileURLToPath(new URL('../../../scenarios/loop-pure-pursuit.yaml', import.meta.url));
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-diverged-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

describe('physics that diverges', () => {
  it.each([['vehicles.car0.params.I=0.0001'], ['vehicles.car0.params.C_Sf=1000']])('%s: the run fails, says which car and when, keeps what it measured', async (override) => {
    const { summary, runDir } = await runScenarioSimulated(LOOP, { overrides: [override, 'duration=10s'], runsDir });
    expect(summary.status).toBe('failed');
    expect(summary.exit_status).toBe(5);
    expect(summary.reason).toMatch(/^car0's physics diverged at t=\d+\.\d\d s \(yawRate = [\d.e+]+\): its vehicle parameters are outside what the single-track model can integrate$/);
    expect(summary.hint).toMatch(/vehicles\.car0\.params/);
    expect(summary.steps).toBeGreaterThan(100);
    const rows = readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n').slice(1);
    expect(rows.length).toBe(summary.steps + 1);
    expect(rows.join('\n')).not.toMatch(/NaN|Infinity/);
  });

  it('f1tenth_gym defaults stay sane for the whole run', async () => {
    const { summary } = await runScenarioSimulated(LOOP, { overrides: ['duration=10s'], runsDir });
    expect(summary.status).toBe('completed');
  });
});
