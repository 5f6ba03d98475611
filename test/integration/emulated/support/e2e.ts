import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { teardownRuns } from '../../../../src/api/teardown.js';
import { listActiveRuns } from '../../../../src/run/active-runs.js';
import { dockerProblem, ns3Problem, type RealGate, requireReal, rootProblem } from '../../../support/real-components.js';

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const HEAD_ON = join(ROOT, 'scenarios/head-on-brake.yaml');
export const CLI = join(ROOT, 'dist/cli/main.js');
/**
 * How far an emulated head-on's minimum distance may be from the simulated one's: two physics steps
 * of closing travel at 2 x 10 m/s. One step for where the brake message's arrival falls on the step
 * grid (its real stack and ns-3's wake-up move it by a millisecond), one for a drive command that
 * the run's lateness tolerance lets be a step late.
 */
export const HEAD_ON_MIN_DISTANCE_TOLERANCE_M = 0.4;

/**
 * What every emulated end-to-end file needs: its own runs folder and active-run index (removed after
 * the file), and the gate that skips it on a workstation without root, ns-3 or Docker and fails it in CI.
 */
export async function emulatedE2e(name: string): Promise<{ runsDir: string; real: RealGate }> {
  const runsDir = mkdtempSync(join(tmpdir(), `cavsim-${name}-`));
  const stateDir = mkdtempSync(join(tmpdir(), 'cavsim-state-'));
  process.env.CAVSIM_STATE_DIR = stateDir;
  afterAll(async () => {
    // A failed test may leave a run up (a kept one, say): undo it while its journal still exists,
    // or deleting the folders below would orphan its links, rules and ns-3 for good.
    if (listActiveRuns(stateDir).length) {
      const { createEmulatedDeps } = await import('../../../../src/api/run-emulated.js');
      await teardownRuns({ all: true, force: true }, createEmulatedDeps(), runsDir);
    }
    rmSync(runsDir, { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
  });
  const real = requireReal(`emulated/${name}.test.ts`, rootProblem() ?? ns3Problem() ?? (await dockerProblem()));
  return { runsDir, real };
}
