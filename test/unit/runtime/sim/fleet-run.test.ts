import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';
import { deliveryTable } from '../../../../src/measurement/delivery-by-distance.js';
import { v2vRowFieldsFromText } from '../../../../src/measurement/v2v-row.js';
import { readCsvRecords } from '../../../../src/util/csv-records.js';
import { snakeCaseKeys } from '../../../../src/util/snake-case.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cavsim-fleet-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 24 parked cars 8 m apart in two lanes, each beaconing 190 B at 10 Hz, for 1 s. */
function parked(network: string): string {
  const file = join(dir, `parked-${Math.random().toString(36).slice(2)}.yaml`);
  const cars = Array.from(
    { length: 24 },
    (_, i) =>
      `  - { name: car${i}, start: { x: ${-95 + Math.floor(i / 2) * 8}, y: ${i % 2 ? 1 : -1}, yaw: 0, speed: 0 }, controller: { type: idle }, apps: [{ type: beacon, rate: 10Hz, size: 190B }] }`,
  );
  writeFileSync(
    file,
    `name: parked\nmap: ${join(ROOT, 'maps/highway.yaml')}\nduration: 1s\nseed: 2\nnetwork: ${network}\nvehicles:\n${cars.join('\n')}\n`,
  );
  return file;
}

function v2vRows(runDir: string) {
  const [header, ...records] = readCsvRecords(readFileSync(join(runDir, 'v2v.csv'), 'utf8'));
  const column = new Map(header.cells.map((c, i) => [c, i]));
  return records.map((r) => v2vRowFieldsFromText((name) => r.cells[column.get(name) ?? -1]));
}

describe('a fleet run (record.v2v: false) counts the outcomes a run with v2v.csv lists', () => {
  for (const [label, network] of [
    [
      'the builtin 802.11p, which counts them itself',
      '{ channel: wifi-80211p, engine: builtin, propagation: log-distance, txPower: 15dBm }',
    ],
    ['a latency channel with losses, whose outcomes the runtime counts', '{ channel: latency, engine: builtin, delay: 2ms, loss: 0.2 }'],
  ]) {
    it(label, async () => {
      const file = parked(network);
      const rows = await runScenarioSimulated(file, { runsDir: dir, runId: `rows-${label.length}`, mcapByDefault: false });
      const fleet = await runScenarioSimulated(file, { runsDir: dir, runId: `fleet-${label.length}`, overrides: ['record.v2v=false'] });
      const a = rows.summary.v2v;
      const b = fleet.summary.v2v;
      expect(a.sent).toBeGreaterThan(200);
      for (const key of ['sent', 'sent_pairs', 'received', 'lost', 'in_flight_at_end', 'delivery_ratio', 'lost_by_reason', 'load'] as const)
        expect(b[key], key).toEqual(a[key]);
      expect(b.sent_pairs).toBe(b.received + b.lost + b.in_flight_at_end!);
      expect(b.lost).toBeGreaterThan(0);
      // latency to the histogram's 10 us
      expect(Math.abs(b.p50_ms! - a.p50_ms!)).toBeLessThanOrEqual(0.006);
      expect(b.mean_ms).toBeCloseTo(a.mean_ms!, 2);
      expect(b.delivery_by_distance).toEqual(snakeCaseKeys(deliveryTable(v2vRows(rows.runDir))));
      // no per-pair figures, no per-frame files
      expect(fleet.summary.pairs).toBeNull();
      expect(b.pairs).toBeUndefined();
      expect(b.beacon_age).toBeNull();
      expect(fleet.summary.fleet?.reason).toBe(
        'v2v.csv not written: record.v2v is false; record.v2v: true writes one row per frame and receiver',
      );
      for (const f of ['v2v.csv', 'v2v.pcap', 'run.mcap', 'channel-busy.csv']) expect(existsSync(join(fleet.runDir, f)), f).toBe(false);
      expect(existsSync(join(fleet.runDir, 'delivery-distance.csv'))).toBe(true);
      // the rest of the run is the same
      for (const f of ['vehicles.csv', 'pairs.csv', 'collisions.csv', 'events.csv'])
        expect(readFileSync(join(fleet.runDir, f), 'utf8'), f).toBe(readFileSync(join(rows.runDir, f), 'utf8'));
    });
  }
});
