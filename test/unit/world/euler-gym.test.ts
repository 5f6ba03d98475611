import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runResolvedSimulated } from '../../../src/api/run-simulated.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { REFERENCE_RUNS } from '../core/physics/f1tenth-gym-reference.js';

/**
 * f1tenth_gym runs its own default car with `integrator: euler` at its 10 ms step, so cavsim must
 * too: the scenario is accepted with a warning, runs, and the car goes where the gym's own code
 * takes it (f1tenth-gym-reference.ts, computed from the gym's modules).
 */
const OPEN_MAP = fileURLToPath(new URL('../../../maps/open.yaml', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cavsim-euler-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scenario(name: string, start: string, schedule: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\nmap: ${OPEN_MAP}\nduration: 3s\nphysics: { integrator: euler, timestep: 10ms }\nvehicles:\n  - name: car0\n    start: ${start}\n    controller: { type: open-loop, schedule: [${schedule}] }\n`,
  );
  return file;
}

const rows = (runDir: string) =>
  readFileSync(join(runDir, 'vehicles.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));

describe("f1tenth_gym's defaults with euler at 10 ms", () => {
  it('turning from rest: accepted with a warning, run, and on the trajectory of the gym itself', async () => {
    const reference = REFERENCE_RUNS.find((r) => r.name === 'rest-to-3mps-left-turn-euler')!;
    const [x, y, yaw] = reference.pose;
    const loaded = await loadScenario(
      scenario('euler-turn', `{ x: ${x}, y: ${y}, yaw: ${yaw}, speed: 0 }`, '{t: 0s, speed: 3, steer: 0.3}'),
      { runtime: 'sim' },
    );
    expect(loaded.warnings?.[0]).toMatch(
      /^vehicles\.car0\.params \(line \d+\): .* to be safe use physics\.timestep: 7\.2ms or less, or physics\.integrator: rk4/,
    );
    const { summary, runDir } = await runResolvedSimulated(loaded, { runsDir: join(dir, 'runs') });
    expect(summary.status, summary.reason).toBe('completed');
    const all = rows(runDir);
    for (const { step, state } of reference.samples) {
      const row = all.find((r) => Math.abs(Number(r[0]) - step * 0.01) < 1e-9);
      if (!row) throw new Error(`no row at step ${step} (t = ${step * 0.01} s) in vehicles.csv`);
      // x, y, yaw (wrapped to [0, 2π] as the gym does) and speed, to the CSV's 1e-6
      const ours = [Number(row[2]), Number(row[3]), Number(row[4]), Number(row[5])];
      const gym = [state[0], state[1], state[4], state[3]];
      ours.forEach((v, i) =>
        expect(Math.abs(v - gym[i]), `step ${step}, column ${i}: ${v} vs the gym's ${gym[i]}`).toBeLessThanOrEqual(1e-6),
      );
    }
  });

  it('straight from 2 m/s to 5 m/s: accepted, run, finite', async () => {
    const loaded = await loadScenario(scenario('euler-straight', '{ x: -20, y: 0, yaw: 0, speed: 2 }', '{t: 0s, speed: 5, steer: 0}'), {
      runtime: 'sim',
    });
    const { summary, runDir } = await runResolvedSimulated(loaded, { runsDir: join(dir, 'runs') });
    expect(summary.status, summary.reason).toBe('completed');
    const last = rows(runDir).at(-1)!;
    expect(Number(last[3])).toBeCloseTo(0, 9);
    expect(Number(last[5])).toBeGreaterThan(4);
    expect(last.slice(2).map(Number).every(Number.isFinite)).toBe(true);
  });
});
