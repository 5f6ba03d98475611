import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitFlags } from '../../../src/channel/ns3/compile.js';
import { writeObstacleGrid } from '../../../src/channel/ns3/lockstep/obstacle-grid-file.js';
import { loadMap } from '../../../src/core/map/load-map.js';
import { OccupancyGrid } from '../../../src/core/map/occupancy-grid.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { packageRoot } from '../../../src/util/package-root.js';
import { ns3LockstepProblem, requireReal } from '../../support/real-components.js';

/**
 * ns-3's wall model (ns3-scripts/lib/map-obstacles.h) settles runs of samples a cell's reach apart
 * without looking each one up. This compiles a check program that traces random segments on every
 * shipped map with both that and the plain walk (every sample every half cell, looked up one by
 * one) and asks for the same cuts and the same metres, to the last bit.
 */
const real = requireReal('ns3-lockstep/obstacle-trace.test.ts', ns3LockstepProblem());
const runner = createCommandRunner();
const scratch = mkdtempSync(join(tmpdir(), 'cavsim-obstacle-trace-'));
const check = join(scratch, 'obstacle-trace-check');
const SEGMENTS = 100_000;

interface CheckResult {
  segments: number;
  mismatches: number;
  cuts: number;
  sumMismatches: number;
  output: string;
}

async function runCheck(grid: string, seed: number): Promise<CheckResult> {
  const { stdout } = await runner.run([check, grid, String(SEGMENTS), String(seed)]);
  const traced = /segments (\d+) mismatches (\d+) cuts (\d+)/.exec(stdout);
  const sums = /sums \d+ mismatches (\d+)/.exec(stdout);
  if (!traced || !sums) throw new Error(`unexpected output of the check program:\n${stdout}`);
  return {
    segments: Number(traced[1]),
    mismatches: Number(traced[2]),
    cuts: Number(traced[3]),
    sumMismatches: Number(sums[1]),
    output: stdout,
  };
}

describe.skipIf(real.skip)('walls between two antennas, traced in ns-3', () => {
  beforeAll(async () => {
    real.assertPresent();
    const flags = await runner.run(['pkg-config', '--cflags', '--libs', 'ns3-core', 'ns3-mobility', 'ns3-propagation']);
    const split = splitFlags(flags.stdout);
    const source = join(packageRoot(), 'test/integration/ns3-lockstep/programs/obstacle-trace-check.cc');
    await runner.run(['g++', '-O2', '-std=c++17', `-I${join(packageRoot(), 'ns3-scripts/lib')}`, '-o', check, source, ...split]);
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const maps = readdirSync(join(packageRoot(), 'maps'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''));

  it.each(maps)(
    'the %s map: the same cuts and metres as the plain walk on random segments',
    async (name) => {
      const grid = join(scratch, `${name}.grid`);
      writeObstacleGrid(await loadMap(join(packageRoot(), 'maps', `${name}.yaml`)), grid);
      const result = await runCheck(grid, 7);
      expect(result.output).not.toContain('mismatch (');
      expect(result).toMatchObject({ segments: SEGMENTS, mismatches: 0, sumMismatches: 0 });
      if (name !== 'open') expect(result.cuts).toBeGreaterThan(SEGMENTS / 10); // the segments do cross walls
    },
    60_000,
  );

  it('a grid with thin walls, wide blocks and free space beyond its edge', async () => {
    const width = 120;
    const height = 60;
    const occupied = new Uint8Array(width * height);
    for (let row = 0; row < height; row++) {
      occupied[row * width + 30] = 1; // a one-cell wall
      for (let col = 60; col < 100; col++) if (row > 10 && row < 50) occupied[row * width + col] = 1; // a block
    }
    for (let i = 0; i < width * height; i += 97) occupied[i] = 1; // scattered cells
    const grid = join(scratch, 'thin.grid');
    writeObstacleGrid(new OccupancyGrid({ width, height, resolution: 0.1, origin: { x: -6, y: -3, yaw: 0 }, occupied }), grid);
    const result = await runCheck(grid, 11);
    expect(result).toMatchObject({ mismatches: 0, sumMismatches: 0 });
    expect(result.cuts).toBeGreaterThan(SEGMENTS / 2);
  }, 60_000);
});
