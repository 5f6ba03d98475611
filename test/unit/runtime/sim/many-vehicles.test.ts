import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';
import { CavsimError } from '../../../../src/errors.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { MAX_VEHICLES } from '../../../../src/scenario/vehicle-limit.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cavsim-many-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `n` cars on the open map in rows 3 m apart, every one driving east at 2 m/s and beaconing. */
function gridOfCars(n: number, duration = '200ms'): string {
  const file = join(dir, `grid-${n}.yaml`);
  const cars = Array.from(
    { length: n },
    (_, i) =>
      `  - { name: car${i}, start: { x: ${-27 + (i % 18) * 3}, y: ${-27 + Math.floor(i / 18) * 1.5}, yaw: 0, speed: 2 }, controller: { type: open-loop, schedule: [{ t: 0s, speed: 2, steer: 0 }] }, apps: [{ type: beacon, rate: 10Hz }] }`,
  );
  writeFileSync(
    file,
    `name: grid-${n}\nmap: ${join(ROOT, 'maps/open.yaml')}\nduration: ${duration}\nnetwork: { channel: latency, engine: builtin }\nvehicles:\n${cars.join('\n')}\n`,
  );
  return file;
}

describe('scenarios with more than 64 vehicles', () => {
  it('100 cars validate and run, every car in vehicles.csv at every step', async () => {
    const { summary, runDir } = await runScenarioSimulated(gridOfCars(100), { runsDir: join(dir, 'runs') });
    expect(summary.status).toBe('completed');
    const rows = readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n').slice(1);
    expect(new Set(rows.map((r) => r.split(',')[1])).size).toBe(100);
    expect(rows.length).toBe(100 * (summary.steps + 1));
    // 1.5 m apart in columns, so the neighbours in a column are recorded as a pair
    expect(summary.min_distance_m).toBeCloseTo(1.5, 6);
    expect(summary.v2v.sent).toBeGreaterThan(100);
  });

  it(`refuses more than ${MAX_VEHICLES}, naming the limit`, async () => {
    const refusal = await loadScenario(gridOfCars(MAX_VEHICLES + 1)).catch((err: CavsimError) => err);
    expect(refusal).toBeInstanceOf(CavsimError);
    expect((refusal as CavsimError).details).toEqual([expect.stringMatching(new RegExp(`^vehicles .*${MAX_VEHICLES}`))]);
  });
});
