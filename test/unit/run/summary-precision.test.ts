import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { formatSummary } from '../../../src/ui/terminal/run/summary-text.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-precision-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

/** Every number in a JSON value, with where it is. */
const numbers = (v: unknown, at = ''): [string, number][] =>
  typeof v === 'number' ? [[at, v]] : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => numbers(x, `${at}.${k}`)) : [];

describe('numbers a run reports', () => {
  it('are kept to 6 decimals in summary.json and the printed summary (no 0.6999999999999977 s TTC)', async () => {
    const { summary, runDir } = await runScenarioSimulated(join(ROOT, 'scenarios/head-on-brake.yaml'), {
      overrides: ['network.engine=builtin'],
      runsDir,
    });
    const { parameters: _resolvedScenario, ...measured } = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    const long = numbers(measured).filter(([, n]) => Math.abs(n - +n.toFixed(6)) > 0);
    expect(long).toEqual([]);
    expect(summary.events.find((e) => e.event === 'brake-sent')?.detail?.ttc_s).toBe(0.7);
    expect(formatSummary(summary, runDir)).not.toMatch(/\d\.\d{7,}/);
    // events.csv's details too, written by the recorder at the same precision (util/print-precision.ts)
    expect(readFileSync(join(runDir, 'events.csv'), 'utf8')).toMatch(/"ttc_s"":0\.7,/);
    expect(readFileSync(join(runDir, 'events.csv'), 'utf8')).not.toMatch(/\d\.\d{7,}/);
  });
});
