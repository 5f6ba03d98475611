import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScenarioSimulated } from '../../../src/api/run-scenario.js';
import { parseVehicleTrajectory, type TrajectorySample } from '../../../src/waypoints/trajectory.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-laps-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

// The loop's centreline: two 16 m straights and two half circles of radius 8 m.
const CENTRELINE_LENGTH = 2 * 16 + 2 * Math.PI * 8;

/** Net heading change in turns (counter-clockwise positive) and path length driven. */
function progress(samples: readonly TrajectorySample[]): { turns: number; distance: number } {
  let heading = 0;
  let distance = 0;
  for (let i = 1; i < samples.length; i++) {
    let d = samples[i].yaw - samples[i - 1].yaw;
    d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
    heading += d;
    distance += Math.hypot(samples[i].x - samples[i - 1].x, samples[i].y - samples[i - 1].y);
  }
  return { turns: heading / (2 * Math.PI), distance };
}

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
      const { turns, distance } = progress(car);
      expect(turns).toBeGreaterThanOrEqual(1);
      expect(distance).toBeGreaterThanOrEqual(CENTRELINE_LENGTH);
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
      const { turns, distance } = progress(trajectory(name));
      expect(turns, name).toBeGreaterThan(0.9);
      expect(distance, name).toBeGreaterThan(0.85 * CENTRELINE_LENGTH);
    }
  });
});
