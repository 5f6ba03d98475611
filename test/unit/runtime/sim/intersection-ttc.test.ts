import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cavsim-intersection-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Written from docs/scenario.md alone: 802.11p with the map's walls, beacons, and a TTC brake from
// the beacons at 1.5 s. The east-west pair crosses the centre at 3 s, in lanes 2 m apart; the
// north-south pair 1.8 s later, when the others have cleared it. Nobody is ever on a collision course.
const car = (name: string, x: number, y: number, yaw: number) => `
  - name: ${name}
    start: { x: ${x}, y: ${y}, yaw: ${yaw}, speed: 5 }
    controller: { type: idle }
    apps:
      - { type: beacon, rate: 10Hz }
      - { type: ttc-brake-sender, source: neighbours, threshold: 1.5s }`;
const SCENARIO = join(dir, 'intersection-four.yaml');
writeFileSync(
  SCENARIO,
  `name: intersection-four
map: ${join(ROOT, 'maps/intersection.yaml')}
duration: 6s
seed: 1
network: { channel: wifi-80211p, obstacles: map }
vehicles:${car('we', -15, -1, 0)}${car('ew', 15, 1, Math.PI)}${car('sn', 1, -24, Math.PI / 2)}${car('ns', -1, 24, -Math.PI / 2)}
`,
);
const run = (overrides: string[] = []) => runScenarioSimulated(SCENARIO, { overrides, runsDir: dir });
const braked = (events: readonly { vehicle: string; event: string }[]) =>
  events
    .filter((e) => e.event === 'emergency-brake')
    .map((e) => e.vehicle)
    .sort();

describe('a 4-car intersection with ttc-brake-sender from beacons', () => {
  it('geometric TTC (the default): cars in the opposite lane, 2 m to the side, are no reason to brake', async () => {
    const { summary } = await run();
    expect(summary.v2v.received).toBeGreaterThan(100);
    expect(braked(summary.events)).toEqual([]);
    expect(summary.collision).toBe(false);
    expect(summary.min_ttc_s).toBeNull();
  });

  it('Eq. 3.7 (ttc: centre-distance) brakes every car for good, as before', async () => {
    const { summary } = await run(['vehicles.*.apps.ttc-brake-sender.ttc=centre-distance']);
    expect(braked(summary.events)).toEqual(['ew', 'ns', 'sn', 'we']);
    expect(summary.collision).toBe(false);
  });
});
