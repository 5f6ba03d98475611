import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';
import { parseVehicleTrajectory, type TrajectorySample } from '../../../../src/api/waypoints/trajectory.js';
import { LOOP_CENTRELINE_LENGTH, lapProgress } from '../../../support/lap-progress.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-laps-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

/** How far the car strayed from the centreline [m]; the walls are 1.5 m either side. */
function maxOffset(samples: readonly TrajectorySample[]): number {
  return Math.max(...samples.map((s) => Math.abs(Math.hypot(s.x - Math.max(-8, Math.min(8, s.x)), s.y) - 8)));
}

async function runLoop(file: string) {
  const { summary, runDir } = await runScenarioSimulated(join(ROOT, 'scenarios', file), { runsDir });
  const csv = readFileSync(join(runDir, 'vehicles.csv'), 'utf8');
  return { summary, trajectory: (name: string) => parseVehicleTrajectory(csv, name) };
}

describe('each driving algorithm laps the loop track in the simulated runtime', () => {
  it.each(['loop-pure-pursuit.yaml', 'loop-gap-follow.yaml', 'loop-wall-follow.yaml', 'loop-rrt.yaml'])(
    '%s: at least one full lap, no wall collision',
    async (file) => {
      const { summary, trajectory } = await runLoop(file);
      expect(summary.status).toBe('completed');
      expect(summary.collisions).toEqual([]);
      const car = trajectory('car0');
      expect(car.some((s) => s.collided)).toBe(false);
      const { turns, distance } = lapProgress(car);
      expect(turns).toBeGreaterThanOrEqual(1);
      expect(distance).toBeGreaterThanOrEqual(LOOP_CENTRELINE_LENGTH);
      // The car's half-diagonal is 0.33 m: a collision-free car stays within 1.5 − 0.33 m of the centreline.
      expect(maxOffset(car)).toBeLessThan(1.5 - 0.33);
    },
  );
});

describe('mixed-four: four algorithms on one track at once', () => {
  it('runs all four cars round the loop without a collision', async () => {
    const { summary, trajectory } = await runLoop('mixed-four.yaml');
    expect(summary.status).toBe('completed');
    expect(summary.collision).toBe(false);
    expect(summary.collisions).toEqual([]);
    expect(summary.min_distance_m).toBeGreaterThan(1);
    for (const name of ['pursuit', 'gap', 'wall', 'rrt']) {
      const { turns, distance } = lapProgress(trajectory(name));
      expect(turns, name).toBeGreaterThan(0.9);
      expect(distance, name).toBeGreaterThan(0.85 * LOOP_CENTRELINE_LENGTH);
    }
  });
});
