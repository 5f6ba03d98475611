import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** A fleet through the built CLI: 150 cars beaconing on the builtin 802.11p for 1 s, counted instead of recorded per frame and receiver. */
const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-fleet-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SCENARIO = join(work, 'fleet-150.yaml');
writeFileSync(
  SCENARIO,
  `name: fleet-150
duration: 1s
seed: 4
network: { channel: wifi-80211p, engine: builtin, propagation: winner-b1, txPower: 23dBm }
traffic:
  road: { length: 1500m, lanes: 3 }
  density: 100/km
  speed: 25m/s
  apps: [ { type: beacon, rate: 10Hz, size: 190B } ]
`,
);

describe('a fleet run through the CLI', () => {
  it('150 cars: says v2v.csv is not written and why, and summary.json counts every outcome by reason and distance', () => {
    const r = spawnSync('node', [CLI, 'up', SCENARIO, '--runtime', 'sim', '--runs-dir', join(work, 'runs'), '--run-id', 'fleet'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CI: '1' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(
      /^info: v2v\.csv not written: 150 cars; record\.v2v: true writes one row per frame and receiver; no v2v\.pcap, run\.mcap \(record\.mcap: true writes it\) or per-pair V2V figures; outcomes counted by distance in delivery-distance\.csv$/m,
    );
    const runDir = join(work, 'runs', 'fleet');
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    expect(summary.fleet.reason).toBe('v2v.csv not written: 150 cars; record.v2v: true writes one row per frame and receiver');
    expect(summary.pairs).toBeNull();
    const v2v = summary.v2v;
    // every car beacons about ten times in the second, to each of the 149 others
    expect(v2v.sent).toBeGreaterThanOrEqual(1400);
    expect(v2v.sent).toBeLessThanOrEqual(1500);
    expect(v2v.sent_pairs).toBe(v2v.sent * 149);
    expect(v2v.sent_pairs).toBe(v2v.received + v2v.lost + v2v.in_flight_at_end);
    const reasons = Object.entries(v2v.lost_by_reason as Record<string, number>);
    expect(reasons.filter(([k]) => k !== 'run-ended').reduce((s, [, n]) => s + n, 0)).toBe(v2v.lost);
    expect(v2v.received).toBeGreaterThan(0);
    expect(v2v.lost_by_reason['below-sensitivity']).toBeGreaterThan(0);
    expect(v2v.delivery_ratio).toBe(+(v2v.received / (v2v.received + v2v.lost)).toFixed(6));
    expect(v2v.p50_ms).toBeGreaterThan(0);
    expect(v2v.p99_ms).toBeGreaterThanOrEqual(v2v.p50_ms);
    expect(v2v.beacon_age).toBeNull();
    // a fleet's summary lists its 5 busiest cars' CBR; every car's is in cbr.csv
    expect(v2v.cbr.per_car).toHaveLength(5);
    expect(v2v.cbr.cars).toBe(150);
    expect(v2v.cbr.per_car[0].mean).toBe(v2v.cbr.car_means.max);
    // the table: 50 m bins to 500 m, the nearest delivering best, each bin's shares summing to 1
    const table = v2v.delivery_by_distance;
    expect([table.bin_width, table.max_distance, table.bins.length]).toEqual([50, 500, 10]);
    for (const bin of table.bins.filter((b: { frames: number }) => b.frames > 0)) {
      const shares = bin.delivery + Object.values(bin.losses as Record<string, number>).reduce((s, x) => s + x, 0);
      expect(shares).toBeCloseTo(1, 5);
    }
    expect(table.bins[0].delivery).toBeGreaterThan(table.bins[9].delivery ?? 0);
    // delivery-distance.csv counts every outcome the summary counts
    const [header, ...rows] = readFileSync(join(runDir, 'delivery-distance.csv'), 'utf8').trim().split('\n');
    expect(header).toBe(
      'from_m,to_m,frames,delivered,channel_loss,below_sensitivity,propagation,collision,rx_error,receiver_busy,half_duplex,queue_drop,malformed',
    );
    const total = (column: number) => rows.reduce((s, row) => s + Number(row.split(',')[column]), 0);
    expect(total(2)).toBe(v2v.received + v2v.lost);
    expect(total(3)).toBe(v2v.received);
    // no row per frame and receiver, no capture, no recording
    for (const f of ['v2v.csv', 'v2v.pcap', 'run.mcap']) expect(existsSync(join(runDir, f)), f).toBe(false);
    expect(existsSync(join(runDir, 'vehicles.csv'))).toBe(true);
  });
});
