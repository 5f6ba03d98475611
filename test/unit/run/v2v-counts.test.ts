import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { formatSummary } from '../../../src/ui/terminal/run/summary-text.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-v2v-counts-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

describe('V2V counts, one unit per figure', () => {
  it('over a lossy platoon (broadcasts to five cars): sent pairs = received + lost by reason, in summary.json and the printed line', async () => {
    const overrides = ['network.engine=builtin', 'network.loss=0.3', 'network.delay=40ms', 'duration=3s'];
    const { summary, runDir } = await runScenarioSimulated(join(ROOT, 'scenarios/platoon-cacc.yaml'), { overrides, runsDir });
    const v = summary.v2v;
    const rows = parse(readFileSync(join(runDir, 'v2v.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const byReason = Object.values(v.lost_by_reason!).reduce((a, b) => a + b, 0);

    expect(v.lost).toBeGreaterThan(50);
    expect(v.in_flight_at_end).toBeGreaterThan(0);
    // v2v.csv has a row per message and intended receiver
    expect(v.sent_pairs).toBe(rows.length);
    expect(v.sent_pairs).toBe(5 * v.sent);
    expect(v.sent_pairs).toBe(v.received + byReason);
    expect(v.received).toBe(rows.filter((r) => r.outcome === 'delivered').length);
    expect(v.lost).toBe(byReason - v.lost_by_reason!['run-ended']);
    expect(v.lost_by_reason!['run-ended']).toBe(v.in_flight_at_end);
    expect(v.delivery_ratio).toBeCloseTo(v.received / (v.received + v.lost), 5);

    expect(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')).v2v).toMatchObject({
      sent: v.sent,
      sent_pairs: v.sent_pairs,
      received: v.received,
      lost: v.lost,
    });
    const line = formatSummary(summary, runDir)
      .split('\n')
      .find((l) => l.includes('V2V'))!;
    expect(line).toContain(
      `${v.sent} messages to ${v.sent_pairs} receivers: ${v.received} received, ${v.lost} lost (channel-loss ${v.lost_by_reason!['channel-loss']}), ${v.in_flight_at_end} in flight at the end`,
    );
  });
});
