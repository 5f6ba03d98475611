import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SCENARIO = join(ROOT, 'scenarios/hard-braking-warning.yaml');
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-warning-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));
const run = (overrides: string[]) => runScenarioSimulated(SCENARIO, { overrides: ['network.engine=builtin', ...overrides], runsDir });

describe('hard-braking-warning (builtin channel)', () => {
  it('the leader warns as it brakes (a copy every 100 ms for 1 s); the follower brakes on the first and they stop apart', async () => {
    const { summary } = await run([]);
    expect(summary.collision).toBe(false);
    const events = summary.events.map((e) => `${e.vehicle} ${e.event}`);
    expect(events).toEqual(['car0 scripted-event', 'car0 warning-started', 'car1 warning-received', 'car1 emergency-brake']);
    expect(summary.v2v.sent).toBe(11); // copies at 0, 0.1, ..., 1.0 s after the start
    const started = summary.events.find((e) => e.event === 'warning-started')!.t_s;
    const received = summary.events.find((e) => e.event === 'warning-received')!.t_s;
    expect(received - started).toBeGreaterThanOrEqual(0.01);
    expect(received - started).toBeLessThan(0.03);
  });

  it('a warning 300 ms late is too late, as is a lost first copy at 150 ms', async () => {
    expect((await run(['network.delay=300ms'])).summary.collision).toBe(true);
    expect((await run(['network.delay=150ms'])).summary.collision).toBe(false);
    // seed 1 at loss 0.5 loses the first copy; the second, 100 ms later, arrives at 250 ms
    const lossy = (await run(['network.delay=150ms', 'network.loss=0.5'])).summary;
    expect(lossy.collision).toBe(true);
    expect(lossy.v2v.lost_by_reason!['channel-loss']).toBeGreaterThan(0);
  });
});
