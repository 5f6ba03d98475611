import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cavsim-beacons-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Three parked cars 10 m apart, each beaconing; car2's beacons go to car0 only. */
function beaconScenario(network: string): string {
  const file = join(dir, `beacons-${Math.random().toString(36).slice(2)}.yaml`);
  const car = (name: string, x: number, to = '*') =>
    `  - name: ${name}\n    start: { x: ${x}, y: 0 }\n    apps: [{ type: beacon, rate: 10Hz, size: 300B, to: "${to}" }]\n`;
  writeFileSync(
    file,
    `name: beacons\nmap: ${join(ROOT, 'maps/open.yaml')}\nduration: 10s\nnetwork: ${network}\nvehicles:\n${car('car0', -10)}${car('car1', 0)}${car('car2', 10, 'car0')}`,
  );
  return file;
}

const rowsOf = (runDir: string) => parse(readFileSync(join(runDir, 'v2v.csv'), 'utf8'), { columns: true }) as Record<string, string>[];

describe('V2V outcomes: a row per transmission and intended receiver', () => {
  it('beacons go out at their rate, padded to their size, to every other car (or the one named)', async () => {
    const { runDir, summary } = await runScenarioSimulated(beaconScenario('{ engine: builtin, channel: latency, delay: 20ms }'), {
      runsDir: dir,
    });
    const rows = rowsOf(runDir);
    const from = (name: string) => rows.filter((r) => r.from === name);
    // 10 s at 10 Hz, first beacon at each car's own offset within the first period
    const car0Beacons = new Set(from('car0').map((r) => r.id)).size;
    expect(car0Beacons).toBeGreaterThanOrEqual(99);
    expect(car0Beacons).toBeLessThanOrEqual(100);
    expect(
      from('car0')
        .map((r) => r.to)
        .sort(),
    ).toEqual([...Array(car0Beacons).fill('car1'), ...Array(car0Beacons).fill('car2')]);
    expect(new Set(from('car2').map((r) => r.to))).toEqual(new Set(['car0']));
    expect(rows.every((r) => r.size_bytes === '300' && r.type === 'beacon')).toBe(true);
    // delivered, except what was still in flight when the run ended
    const inFlight = rows.filter((r) => r.outcome === 'run-ended');
    expect(rows.filter((r) => r.outcome !== 'delivered' && r.outcome !== 'run-ended')).toEqual([]);
    expect(inFlight.every((r) => Number(r.sent_s) > 10 - 0.021)).toBe(true);
    expect(
      from('car0')
        .filter((r) => r.to === 'car2')
        .every((r) => Math.abs(Number(r.distance_m) - 20) < 1e-9),
    ).toBe(true);
    const sendTimes = [...new Set(from('car1').map((r) => Number(r.sent_s)))];
    expect(sendTimes[1] - sendTimes[0]).toBeCloseTo(0.1, 9);
    // what was in flight at the end has no known fate: left out of the ratio, and not lost
    expect(inFlight.length).toBeGreaterThan(0);
    expect(summary.v2v).toMatchObject({ delivery_ratio: 1, lost: 0, lost_by_reason: { 'run-ended': inFlight.length } });
    expect(summary.v2v.pairs!.map((p) => `${p.from}>${p.to}`)).toEqual(['car0>car1', 'car0>car2', 'car1>car0', 'car1>car2', 'car2>car0']);
    // an ideal channel: beacons every 100 ms, 20 ms (+ under 0.1 ms of frame time) late, sampled
    // every 10 ms step: the age runs from about 30 to 120 ms, 75 ms on average; arrivals 100 ms apart
    for (const p of summary.v2v.pairs!) {
      expect(p.beacon_interval).toMatchObject({ mean_ms: expect.closeTo(100, 0), max_ms: expect.closeTo(100, 0) });
      expect(p.beacon_age!.max_ms).toBeLessThanOrEqual(120.1);
      expect(p.beacon_age!.mean_ms).toBeGreaterThan(70);
      expect(p.beacon_age!.mean_ms).toBeLessThan(76);
    }
    // 3 cars, 10 beacons a second, 300 B each
    expect(summary.v2v.load!.frames_per_s).toBeCloseTo(30, 0);
    expect(summary.v2v.load!.bytes_per_s).toBeCloseTo(9000, -2);
  });

  it('a lost frame keeps its row with the reason, and the summary gives the delivery ratio overall and per pair', async () => {
    const { runDir, summary } = await runScenarioSimulated(beaconScenario('{ engine: builtin, channel: csma, delay: 5ms, loss: 0.25 }'), {
      runsDir: dir,
    });
    const rows = rowsOf(runDir);
    const lost = rows.filter((r) => r.outcome !== 'delivered' && r.outcome !== 'run-ended');
    expect(new Set(lost.map((r) => r.outcome))).toEqual(new Set(['channel-loss']));
    const inFlight = rows.filter((r) => r.outcome === 'run-ended').length;
    expect(lost.every((r) => r.received_s === '' && r.latency_ms === '')).toBe(true);
    const beacons = (name: string) => new Set(rows.filter((r) => r.from === name).map((r) => r.id)).size;
    expect(rows).toHaveLength(2 * beacons('car0') + 2 * beacons('car1') + beacons('car2'));
    expect(summary.v2v.delivery_ratio).toBeCloseTo(1 - lost.length / (rows.length - inFlight), 5);
    expect(summary.v2v.delivery_ratio).toBeGreaterThan(0.65);
    expect(summary.v2v.delivery_ratio).toBeLessThan(0.85);
    expect(summary.v2v.lost_by_reason).toMatchObject({ 'channel-loss': lost.length });
    const inFlightTo = (p: { from: string; to: string }) =>
      rows.filter((r) => r.from === p.from && r.to === p.to && r.outcome === 'run-ended').length;
    for (const p of summary.v2v.pairs!) expect(p.expected).toBe(beacons(p.from) - inFlightTo(p));
  });
});
