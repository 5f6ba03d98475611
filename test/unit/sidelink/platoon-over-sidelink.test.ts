import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PLATOON = join(ROOT, 'scenarios/platoon-cacc-cam-sidelink.yaml');
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-sidelink-platoon-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));
const run = (channel: string) => runScenarioSimulated(PLATOON, { overrides: [`network.channel=${channel}`], runsDir });

describe('the CAM platoon over LTE-V2X and over 802.11p (scenarios/platoon-cacc-cam-sidelink.yaml)', () => {
  it('runs unchanged on both: CAMs delivered, no collision, every follower string stable; LTE-V2X CAMs wait for their reservation', async () => {
    const lte = (await run('lte-v2x')).summary;
    const wifi = (await run('wifi-80211p')).summary;
    for (const s of [lte, wifi]) {
      expect(s.status).toBe('completed');
      expect(s.collision).toBe(false);
      expect(s.v2v!.delivery_ratio).toBeGreaterThan(0.99);
      expect(s.platoon!.string_stability!.stable).toBe(true);
    }
    // a CAM waits up to 100 ms for its car's next reserved subframe; 802.11p sends it within a millisecond
    expect(lte.v2v!.p50_ms!).toBeGreaterThan(20);
    expect(lte.v2v!.p99_ms!).toBeLessThanOrEqual(101);
    expect(wifi.v2v!.p99_ms!).toBeLessThan(5);
  });
});
