import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';
import type { RunEvent } from '../../../../src/run/events.js';
import { RUN_FILES } from '../../../../src/run/run-files.js';
import { RunSession } from '../../../../src/run/run-session.js';
import { SATURATION_WARNING } from '../../../../src/run/saturation.js';
import type { RunSummary } from '../../../../src/run/summary.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { formatSummary } from '../../../../src/ui/terminal/run/summary-text.js';
import { EventBus } from '../../../../src/util/event-bus.js';
import { scratchDir } from '../../../support/scratch-dir.js';

const PLATOON = fileURLToPath(new URL('../../../../scenarios/platoon-cacc.yaml', import.meta.url));
const runsDir = scratchDir('cavsim-saturation-');
const CSMA_100MS = ['network.channel=csma', 'network.delay=100ms', 'network.engine=builtin'];

describe('a saturated channel is said out loud (issue 50: platoon-cacc on csma at 100 ms)', () => {
  it('warns at the start, counts what is still queued as not delivered, and says so in the summary and its text', async () => {
    const events = new EventBus<RunEvent>();
    const warned: string[] = [];
    events.on((e) => {
      if (e.type === 'log' && e.level === 'warn') warned.push(e.message);
    });
    const { summary, runDir } = await runScenarioSimulated(PLATOON, { runsDir, overrides: CSMA_100MS, events, mcapByDefault: false });
    // before the run: the offered load against the bus's capacity, with the fix
    expect(
      warned.some((w) => /will saturate: the apps offer 60 frames\/s; a csma bus at delay 100ms carries about 9.95 frames\/s/.test(w)),
    ).toBe(true);
    const v = summary.v2v;
    expect(v.saturated).toBe(true);
    // one unit: receptions; the queued ones count against delivery
    expect(v.still_queued_at_end).toBeGreaterThan(v.received);
    expect(v.received + v.lost + v.in_flight_at_end!).toBe(v.sent_pairs);
    expect(v.delivery_ratio).toBeCloseTo(v.received / (v.received + v.lost + v.still_queued_at_end!), 6);
    expect(v.delivery_ratio).toBeLessThan(0.3);
    const saturation = summary.warnings!.find((w) => w.startsWith(SATURATION_WARNING))!;
    expect(saturation).toMatch(new RegExp(`${v.still_queued_at_end} of ${v.sent_pairs} receptions still queued at the end`));
    expect(saturation).toContain('lower network.delay under 16.2ms');
    const written = JSON.parse(readFileSync(join(runDir, RUN_FILES.summary), 'utf8')) as RunSummary;
    expect(written.v2v.saturated).toBe(true);
    expect(written.warnings).toEqual(summary.warnings);
    const text = formatSummary(summary, runDir);
    expect(text).toContain(`${v.still_queued_at_end} still queued at the end, ${+(v.delivery_ratio! * 100).toFixed(1)}% delivered`);
    expect(text).toContain(`  warning         ${SATURATION_WARNING}`);
  });

  it('the shipped platoon (latency, 10 ms) is not saturated and warns of nothing', async () => {
    const { summary } = await runScenarioSimulated(PLATOON, { runsDir, mcapByDefault: false });
    expect(summary.v2v.saturated).toBe(false);
    expect(summary.v2v.still_queued_at_end).toBe(0);
    expect(summary.warnings ?? []).toEqual([]);
    expect(formatSummary(summary, '.')).not.toContain('still queued');
  });

  it('the emulated runtime goes through the same checks: its start warns (a datagram per receiver), its finish judges the summary the simulator container wrote', async () => {
    const scenario = await loadScenario(PLATOON, { runtime: 'docker', overrides: CSMA_100MS.slice(0, 2) });
    const { summary: measured } = await runScenarioSimulated(PLATOON, { runsDir, overrides: CSMA_100MS, mcapByDefault: false });
    const events = new EventBus<RunEvent>();
    const warned: string[] = [];
    events.on((e) => {
      if (e.type === 'log' && e.level === 'warn') warned.push(e.message);
    });
    const session = await RunSession.open('docker', scenario, { runsDir, events });
    // five receivers a beacon, one datagram each: 300 frames/s on the bus
    expect(warned.some((w) => w.includes('the apps offer 300 frames/s'))).toBe(true);
    // as the simulator container writes it: its own figures, no verdict of the host's
    const { warnings: _w, ...fromContainer } = measured;
    const { saturated: _s, ...v2v } = fromContainer.v2v;
    session.folder.writeSummary({ ...fromContainer, v2v, runtime: 'docker' });
    const summary = session.finish({ wallTime: 1 });
    await session.close();
    expect(summary.v2v.saturated).toBe(true);
    expect(summary.warnings!.filter((w) => w.startsWith(SATURATION_WARNING))).toHaveLength(1);
    expect(summary.warnings!.some((w) => w.includes('will saturate'))).toBe(true);
  });
});
