import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PLATOON = join(ROOT, 'scenarios/platoon-cacc.yaml');
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-platoon-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));
const run = (overrides: string[]) => runScenarioSimulated(PLATOON, { overrides: ['network.engine=builtin', ...overrides], runsDir });

describe('platoon-cacc (builtin channel)', () => {
  it('at 10 ms and 10 Hz beacons: no collision, every follower string stable, gaps bumper to bumper', async () => {
    const { summary, runDir } = await run([]);
    expect(summary.collision).toBe(false);
    const platoon = summary.platoon!;
    expect(platoon.followers.map((f) => `${f.predecessor}>${f.vehicle}`)).toEqual([
      'car0>car1',
      'car1>car2',
      'car2>car3',
      'car3>car4',
      'car4>car5',
    ]);
    expect(platoon.string_stability!.stable).toBe(true);
    for (const r of platoon.string_stability!.ratios) expect(r.ratio!).toBeLessThanOrEqual(1);
    // moving, each follower kept about its 0.6 s time gap (plus the 2 m standstill)
    for (const f of platoon.followers) expect(f.min_time_headway_s!).toBeGreaterThan(0.6);
    // pairs.csv: the gap is the centre distance less one car length for cars in line
    const first = (parse(readFileSync(join(runDir, 'pairs.csv'), 'utf8'), { columns: true }) as Record<string, string>[])[0];
    expect(Number(first.gap_m)).toBeCloseTo(Number(first.distance_m) - 0.58, 6);
    expect(summary.min_gap_m).toBe(Math.min(...summary.pairs!.map((p) => p.min_gap_m!)));
  });

  it('the same platoon collides at 400 ms of delay, and loses string stability at 300 ms', async () => {
    expect((await run(['network.delay=400ms'])).summary.collision).toBe(true);
    const s = (await run(['network.delay=300ms'])).summary;
    expect(s.collision).toBe(false);
    expect(s.platoon!.string_stability!.stable).toBe(false);
  });

  it("with the gap from each follower's lidar instead of the beaconed position, the platoon behaves the same", async () => {
    const geometric = (await run([])).summary;
    const lidar = (await run(['platoon.follower.lidar={ enabled: true }', 'platoon.follower.apps.cacc.gap=lidar'])).summary;
    expect(lidar.parameters.vehicles[1].apps.find((a) => a.type === 'cacc')).toMatchObject({ gap: 'lidar' });
    expect(lidar.collision).toBe(false);
    expect(lidar.platoon!.string_stability!.stable).toBe(true);
    expect(Math.abs(lidar.min_gap_m! - geometric.min_gap_m!)).toBeLessThan(0.1);
  });
});
