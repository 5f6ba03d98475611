import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { emulatedHostState } from './host-state.js';
import { emulatedE2e, ROOT } from './support/e2e.js';

const { runsDir, real } = await emulatedE2e('platoon');

const PLATOON = join(ROOT, 'scenarios/platoon-cacc.yaml');
/** Three cars of platoon-cacc.yaml: a leader that brakes at 4 s and two CACC followers. */
const overrides = ['platoon.cars=3'];

describe.skipIf(real.skip)('emulated platoon (Docker + ns-3): beacons over real UDP feed each follower', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    before = emulatedHostState();
  });

  it('the followers keep their gap by CACC from beacons, and stop as in the simulated runtime', async () => {
    const e = (await runScenarioEmulated(PLATOON, { runsDir, overrides })).summary;
    const s = (await runScenarioSimulated(PLATOON, { runsDir, overrides })).summary;
    console.log(
      `[platoon] emulated: ${e.status}, collision ${e.collision}, min gap ${e.min_gap_m} m, stability ${JSON.stringify(e.platoon?.string_stability)}; simulated: min gap ${s.min_gap_m} m`,
    );
    expect(['completed', 'invalid']).toContain(e.status);
    expect(e.collision).toBe(s.collision);
    expect(e.collision).toBe(false);
    // each follower heard its predecessor's beacons: CACC mode from the start, no fall back to ACC
    const modes = e.events.filter((ev) => ev.event === 'cacc-mode');
    expect(modes.map((m) => `${m.vehicle}:${m.detail?.mode}`).sort()).toEqual(['car1:cacc', 'car2:cacc']);
    expect(e.platoon!.followers).toHaveLength(2);
    for (const f of e.platoon!.followers) expect(f.min_time_headway_s!).toBeGreaterThan(0.6);
    expect(Math.abs(e.min_gap_m! - s.min_gap_m!)).toBeLessThan(0.3);
    expect(e.v2v.beacon_age!.mean_ms).toBeLessThan(100);
    expect(emulatedHostState()).toEqual(before);
  });
});
