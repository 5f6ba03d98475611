import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-dcc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 150 parked cars on 1 km of three lanes beaconing 190 B at 20 Hz: a channel busy enough for DCC to act. */
const crowded = (dcc: 'off' | 'reactive') => {
  const file = join(dir, `dcc-${dcc}.yaml`);
  writeFileSync(
    file,
    `name: dcc-${dcc}
duration: 2s
seed: 1
network: { channel: wifi-80211p, engine: builtin, propagation: winner-b1, txPower: 23dBm, shadowing: 3dB, noiseFloor: -95dBm, csThreshold: -85dBm }
traffic:
  road: { length: 1km, lanes: 3 }
  density: 150/km
  apps: [ { type: beacon, rate: 20Hz, size: 190B, dcc: ${dcc} } ]
`,
  );
  return runScenarioSimulated(file, { runsDir: join(dir, 'runs') });
};

describe('reactive DCC on a crowded 802.11p channel, simulated runtime', () => {
  it('moves the cars between states, lowers their rate and the channel busy ratio, and says so in events and summary', async () => {
    const off = await crowded('off');
    const on = await crowded('reactive');
    expect(off.summary.status).toBe('completed');
    expect(on.summary.status).toBe('completed');
    const v2vOff = off.summary.v2v as { sent: number; cbr: { mean: number }; dcc?: unknown };
    const v2vOn = on.summary.v2v as {
      sent: number;
      cbr: { mean: number };
      dcc: { cars: number; time_share: Record<string, number>; state_changes: number };
    };
    expect(v2vOff.dcc).toBeUndefined();
    expect(v2vOff.cbr.mean).toBeGreaterThan(0.4);
    expect(v2vOn.sent).toBeLessThan(0.85 * v2vOff.sent);
    expect(v2vOn.cbr.mean).toBeLessThan(0.85 * v2vOff.cbr.mean);
    expect(v2vOn.dcc.cars).toBe(150);
    const shares = Object.values(v2vOn.dcc.time_share);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
    // at a CBR near 30 % the reactive states swing between relaxed and active 1 (a known trait of reactive DCC)
    expect(v2vOn.dcc.time_share['active-1']).toBeGreaterThan(0.3);
    expect(v2vOn.dcc.state_changes).toBeGreaterThanOrEqual(150);
    const events = readFileSync(join(on.runDir, 'events.csv'), 'utf8');
    expect(events).toMatch(/^0\.1,car\d+,dcc-state,"\{""state"":""active-1"",""cbr"":0\.\d+\}"$/m);
  });
});
