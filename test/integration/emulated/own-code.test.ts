import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import {
  buildExampleImages,
  type ExampleImages,
  ownCodeImagesScenario,
  removeExampleImages,
} from '../../support/own-code/example-images.js';
import { dockerProblem, ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { emulatedHostState } from './host-state.js';

/**
 * The same own vehicle code in both runtimes: the Python example (car0) and the Node.js example
 * (car1) as images, head-on, V2V through the channel. Emulated: real time, containers, host
 * networking, ns-3, V2V through cavsim's relay in each car's network namespace. Simulated: the same
 * images as containers in lock-step. The outcome must agree. Needs root, Docker and ns-3.
 */
/** Both cars close at 20 m/s: one physics step (10 ms) of closing travel. */
const ONE_STEP_OF_TRAVEL_M = 0.2;
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-own-code-emulated-'));
const runsDir = join(workDir, 'runs');
mkdirSync(runsDir);
const stateDir = mkdtempSync(join(tmpdir(), 'cavsim-state-'));
process.env.CAVSIM_STATE_DIR = stateDir;

const real = requireReal('emulated/own-code.test.ts', rootProblem() ?? ns3Problem() ?? (await dockerProblem()));
let images: ExampleImages | undefined;

const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];

afterAll(() => {
  if (images) removeExampleImages(images);
  rmSync(workDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

describe.skipIf(real.skip)('own vehicle code, unchanged, in both runtimes (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    images = buildExampleImages();
    before = emulatedHostState();
  });

  it('gives the same verdict, minimum distance within one step of travel, and the same V2V delivery', async () => {
    const file = ownCodeImagesScenario(join(workDir, 'own-code-images.yaml'), images!);
    const emulated = await runScenarioEmulated(file, { runsDir });
    const simulated = await runScenarioSimulated(file, { runsDir });
    const e = emulated.summary;
    const s = simulated.summary;
    console.log(
      `[own-code] emulated ${e.status} min ${e.min_distance_m} m, v2v ${JSON.stringify(e.v2v.received)}; simulated ${s.status} min ${s.min_distance_m} m in ${s.wall_time_s} s`,
    );

    expect(['completed', 'invalid']).toContain(e.status);
    if (e.status === 'invalid') expect(e.reason).toMatch(/late|stack share varied/);
    expect(s.status).toBe('completed');
    expect(e.collision).toBe(s.collision);
    expect(s.collision).toBe(false);
    expect(Math.abs(e.min_distance_m! - s.min_distance_m!)).toBeLessThanOrEqual(ONE_STEP_OF_TRAVEL_M + 1e-9);

    // car0's warning crossed the channel in both: through the relay beside it in emulation.
    for (const dir of [emulated.runDir, simulated.runDir]) {
      const v2v = rows(dir, 'v2v.csv');
      expect(v2v).toHaveLength(1);
      expect(v2v[0]).toMatchObject({ from: 'car0', to: 'car1', type: 'emergency-brake', outcome: 'delivered' });
      expect(rows(dir, 'events.csv').map((r) => `${r.vehicle} ${r.event}`)).toEqual([
        'car0 brake-sent',
        'car0 emergency-brake',
        'car1 brake-received',
        'car1 emergency-brake',
      ]);
    }
    expect(e.v2v.received).toBe(s.v2v.received);

    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });
});
