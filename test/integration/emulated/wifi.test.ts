import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { emulatedHostState } from './host-state.js';
import { emulatedE2e, HEAD_ON, HEAD_ON_MIN_DISTANCE_TOLERANCE_M, ROOT } from './support/e2e.js';

const { runsDir, real } = await emulatedE2e('wifi');
const BLIND_CORNER = join(ROOT, 'scenarios/blind-corner.yaml');
const BLIND_CORNER_BEACONS = join(ROOT, 'scenarios/blind-corner-beacons.yaml');

/** The thesis's head-on scenario with its wired channel replaced by 802.11p at the defaults. */
function headOnOverWifi(): string {
  const yaml = readFileSync(HEAD_ON, 'utf8')
    .replaceAll('../maps/', `${join(ROOT, 'maps')}/`)
    .replace(/network:\n( {2}.*\n)+/, 'network:\n  channel: wifi-80211p\n');
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

  it('head-on over 802.11p: the verdict, min distance (within two steps of closing travel) and delivery agree with the simulated runtime', async () => {
    const file = headOnOverWifi();
    const e = (await runScenarioEmulated(file, { runsDir })).summary;
    const s = (await runScenarioSimulated(file, { runsDir })).summary;
    console.log(
      `[wifi head-on] emulated: ${e.status}, collision ${e.collision}, min distance ${e.min_distance_m} m, V2V p50 ${e.v2v.p50_ms} ms; simulated: collision ${s.collision}, ${s.min_distance_m} m, ${s.v2v.p50_ms} ms`,
    );
    expect(['completed', 'invalid']).toContain(e.status);
    expect(e.collision).toBe(s.collision);
    expect(Math.abs(e.min_distance_m! - s.min_distance_m!)).toBeLessThanOrEqual(HEAD_ON_MIN_DISTANCE_TOLERANCE_M);
    expect(Math.abs(e.v2v.delivery_ratio! - s.v2v.delivery_ratio!)).toBeLessThanOrEqual(0.05);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it('a channel program of your own serves wifi-80211p by the documented argv, positions included (a copy of the built-in one)', async () => {
    const dir = join(runsDir, 'my-channel');
    mkdirSync(dir, { recursive: true });
    cpSync(join(ROOT, 'ns3-scripts/channel-tap.cc'), join(dir, 'my-wifi-channel.cc'));
    cpSync(join(ROOT, 'ns3-scripts/lib'), join(dir, 'lib'), { recursive: true });
    const yaml = readFileSync(BLIND_CORNER, 'utf8')
      .replaceAll('../maps/', `${join(ROOT, 'maps')}/`)
      .replace(/network:\n/, `network:\n  script: ${join(dir, 'my-wifi-channel.cc')}\n`);
    const file = join(dir, 'blind-corner-own-channel.yaml');
    writeFileSync(file, yaml);
    const run = await runScenarioEmulated(file, { runsDir });
    // without the cars' positions every node would sit at the origin with no wall between: delivered
    expect(['completed', 'invalid']).toContain(run.summary.status);
    expect(run.summary.collision).toBe(true);
    expect(run.summary.v2v.delivery_ratio).toBe(0);
    // a program of your own is not asked why: its losses are not-received
    expect(run.summary.v2v.lost_by_reason).toEqual({ 'not-received': run.summary.v2v.lost });
    expect(emulatedHostState()).toEqual(before);
  });

  it('blind corner: the walls cut the brake message in emulation too (collision), and without obstacles it arrives (no collision)', async () => {
    const wallsRun = await runScenarioEmulated(BLIND_CORNER, { runsDir });
    const walls = wallsRun.summary;
    const open = (await runScenarioEmulated(BLIND_CORNER, { runsDir, overrides: ['network.obstacles=none'] })).summary;
    console.log(
      `[wifi blind corner] walls: collision ${walls.collision}, delivery ${walls.v2v.delivery_ratio}; none: collision ${open.collision}, delivery ${open.v2v.delivery_ratio}, p50 ${open.v2v.p50_ms} ms`,
    );
    expect(walls.collision).toBe(true);
    expect(walls.v2v.delivery_ratio).toBe(0);
    // ns-3 said why, as in the simulated runtime: too weak behind the walls, out of sight
    const rows = readFileSync(join(wallsRun.runDir, 'v2v.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row[8]).toBe('below-sensitivity');
      expect(row[10]).toBe('false');
      expect(Number(row[11])).toBeLessThan(-82);
    }
    expect(open.collision).toBe(false);
    expect(open.v2v.delivery_ratio).toBe(1);
    expect(emulatedHostState()).toEqual(before);
  });

  it('blind corner by beacons alone: behind the walls they hear each other too late (collision), in the open they stop', async () => {
    const walls = (await runScenarioEmulated(BLIND_CORNER_BEACONS, { runsDir })).summary;
    const open = (await runScenarioEmulated(BLIND_CORNER_BEACONS, { runsDir, overrides: ['network.obstacles=none'] })).summary;
    console.log(
      `[wifi blind corner beacons] walls: collision ${walls.collision}, delivery ${walls.v2v.delivery_ratio}; none: collision ${open.collision}, min gap ${open.min_gap_m} m`,
    );
    expect(walls.collision).toBe(true);
    expect(open.collision).toBe(false);
    expect(walls.v2v.delivery_ratio!).toBeLessThan(open.v2v.delivery_ratio!);
    expect(walls.v2v.lost_by_reason).toHaveProperty('below-sensitivity');
    expect(emulatedHostState()).toEqual(before);
  });
});
