import { describe, expect, it, beforeAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { emulatedHostState } from './host-state.js';
import { HEAD_ON, ROOT, emulatedE2e } from './support/e2e.js';

const { runsDir, real } = await emulatedE2e('wifi');
const BLIND_CORNER = join(ROOT, 'scenarios/blind-corner.yaml');

/** The thesis's head-on scenario with its wired channel replaced by 802.11p at the defaults. */
function headOnOverWifi(): string {
  const yaml = readFileSync(HEAD_ON, 'utf8')
    .replaceAll('../maps/', join(ROOT, 'maps') + '/')
    .replace(/network:\n(  .*\n)+/, 'network:\n  channel: wifi-80211p\n');
  const file = join(runsDir, 'head-on-wifi.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe.skipIf(real.skip)('emulated wifi-80211p (Docker + ns-3 with TapBridge in UseLocal mode)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    before = emulatedHostState();
  });

  it('head-on over 802.11p: the verdict, min distance (within a step of closing travel) and delivery agree with the simulated runtime', async () => {
    const file = headOnOverWifi();
    const e = (await runScenarioEmulated(file, { runsDir })).summary;
    const s = (await runScenarioSimulated(file, { runsDir })).summary;
    console.log(`[wifi head-on] emulated: ${e.status}, collision ${e.collision}, min distance ${e.min_distance_m} m, V2V p50 ${e.v2v.p50_ms} ms; simulated: collision ${s.collision}, ${s.min_distance_m} m, ${s.v2v.p50_ms} ms`);
    expect(['completed', 'invalid']).toContain(e.status);
    expect(e.collision).toBe(s.collision);
    expect(Math.abs(e.min_distance_m! - s.min_distance_m!)).toBeLessThanOrEqual(0.2);
    expect(Math.abs(e.v2v.delivery_ratio! - s.v2v.delivery_ratio!)).toBeLessThanOrEqual(0.05);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it('blind corner: the walls cut the brake message in emulation too (collision), and without obstacles it arrives (no collision)', async () => {
    const walls = (await runScenarioEmulated(BLIND_CORNER, { runsDir })).summary;
    const open = (await runScenarioEmulated(BLIND_CORNER, { runsDir, overrides: ['network.obstacles=none'] })).summary;
    console.log(`[wifi blind corner] walls: collision ${walls.collision}, delivery ${walls.v2v.delivery_ratio}; none: collision ${open.collision}, delivery ${open.v2v.delivery_ratio}, p50 ${open.v2v.p50_ms} ms`);
    expect(walls.collision).toBe(true);
    expect(walls.v2v.delivery_ratio).toBe(0);
    expect(open.collision).toBe(false);
    expect(open.v2v.delivery_ratio).toBe(1);
    expect(emulatedHostState()).toEqual(before);
  });
});
