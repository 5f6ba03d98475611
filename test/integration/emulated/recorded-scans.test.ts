import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { countOn, readMcap } from '../../support/mcap-reader.js';
import { emulatedHostState } from './host-state.js';
import { emulatedE2e, ROOT } from './support/e2e.js';

const { runsDir, real } = await emulatedE2e('recorded-scans');
const GAP_FOLLOW = join(ROOT, 'scenarios/loop-gap-follow.yaml');
const overrides = ['duration=2s', 'record.scans=true'];
const scanRows = (runDir: string) =>
  readFileSync(join(runDir, 'scans.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));

describe.skipIf(real.skip)('record.scans in the emulated runtime (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    before = emulatedHostState();
  });

  it('writes the scans the simulator published, as the simulated runtime does, and run.mcap on the wall clock', async () => {
    const emulated = await runScenarioEmulated(GAP_FOLLOW, { runsDir, overrides });
    const simulated = await runScenarioSimulated(GAP_FOLLOW, { runsDir, overrides });
    expect(['completed', 'invalid']).toContain(emulated.summary.status);
    const e = scanRows(emulated.runDir);
    const s = scanRows(simulated.runDir);
    // one scan per step at 100 Hz for 2 s, every one with all 1080 ranges; the emulated simulator
    // also publishes the final state (t = 2 s), which no car acts on any more
    expect(s).toHaveLength(200);
    expect(e.map((r) => r[0])).toEqual([...s.map((r) => r[0]), '2']);
    expect(e.every((r) => r[1] === 'car0' && r[4].split(';').length === 1080)).toBe(true);
    expect(emulatedHostState()).toEqual(before);

    const { messages } = await readMcap(join(emulated.runDir, 'run.mcap'));
    expect(countOn(messages, '/car0/scan')).toBe(e.length);
    const t0 = BigInt((emulated.summary.timing as { t0_epoch_ns: string }).t0_epoch_ns);
    expect(t0).toBeGreaterThan(BigInt(Date.now() - 600_000) * 1_000_000n);
    const odom = messages.filter((m) => m.topic === '/car0/odom');
    expect(odom[0].logTime).toBe(t0);
    expect(odom.at(-1)!.logTime).toBe(t0 + 2_000_000_000n);
  });
});
