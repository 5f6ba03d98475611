import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FrameOutcome } from '../../../src/channel/outcome-tally.js';
import { tableOfBinned } from '../../../src/measurement/binned-outcomes.js';
import { type DistanceRow, deliveryTable } from '../../../src/measurement/delivery-by-distance.js';
import { readDeliveryDistance, writeDeliveryDistance } from '../../../src/run/delivery-distance-file.js';
import { FleetV2v, fleetDeliveryTable, fleetV2vFigures } from '../../../src/run/fleet-v2v.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-fleet-v2v-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Ten frames to 4 receivers each (40 pairs): 30 outcomes known, 10 still in flight at the end. */
function tenFrames(): FleetV2v {
  const f = new FleetV2v('v2v.csv not written: 500 cars');
  for (let i = 0; i < 10; i++) f.countSent(4, 190);
  // 12 delivered at 25 m in 1 ms, 4 at 75 m in 3 ms
  for (let i = 0; i < 12; i++) f.tally.add('delivered', 25, 0.001);
  for (let i = 0; i < 4; i++) f.tally.add('delivered', 75, 0.003);
  for (let i = 0; i < 4; i++) f.tally.add('collision', 75, 0);
  for (let i = 0; i < 6; i++) f.tally.add('below-sensitivity', 480, 0);
  f.tally.add('queue-drop', Number.POSITIVE_INFINITY, 0);
  f.tally.addBeyondReach(3);
  return f;
}

describe('a fleet run’s V2V figures from its tally', () => {
  it('counts add up: sent_pairs = received + lost + in flight, and lost_by_reason sums to the rest', () => {
    const v = fleetV2vFigures(tenFrames(), 2);
    expect(v).toMatchObject({ sent: 10, sent_pairs: 40, received: 16, lost: 14, in_flight_at_end: 10 });
    expect(v.lost_by_reason).toEqual({ 'below-sensitivity': 9, collision: 4, 'queue-drop': 1, 'run-ended': 10 });
    expect(v.received + Object.values(v.lost_by_reason).reduce((a, b) => a + b, 0)).toBe(v.sent_pairs);
    expect(v.delivery_ratio).toBe(+(16 / 30).toFixed(6));
    expect(v.load).toEqual({ frames_per_s: 5, bytes_per_s: 950 });
  });

  it('latency from the histogram (10 us bins, at their middle), the mean exact', () => {
    const v = fleetV2vFigures(tenFrames(), 2);
    expect(v.p50_ms).toBe(1.005);
    expect(v.p99_ms).toBe(3.005);
    expect(v.max_ms).toBe(3.005);
    expect(v.mean_ms).toBe(+(((12 * 1 + 4 * 3) / 16) as number).toFixed(3));
    const none = fleetV2vFigures(new FleetV2v('x'), 1);
    expect([none.p50_ms, none.mean_ms, none.delivery_ratio]).toEqual([null, null, null]);
  });

  it('delivery_by_distance: 50 m bins to 500 m, each reason a share; what lies beyond or has no distance is left out', () => {
    const table = fleetV2vFigures(tenFrames(), 2).delivery_by_distance as {
      bin_width: number;
      max_distance: number;
      reasons: string[];
      bins: { from: number; to: number; frames: number; delivered: number; delivery: number | null; losses: Record<string, number> }[];
    };
    expect([table.bin_width, table.max_distance, table.bins.length]).toEqual([50, 500, 10]);
    expect(table.reasons).toEqual(['below-sensitivity', 'collision']);
    expect(table.bins[0]).toEqual({ from: 0, to: 50, frames: 12, delivered: 12, delivery: 1, losses: {} });
    expect(table.bins[1]).toEqual({ from: 50, to: 100, frames: 8, delivered: 4, delivery: 0.5, losses: { collision: 0.5 } });
    expect(table.bins[9]).toMatchObject({ from: 450, to: 500, frames: 6, delivery: 0, losses: { 'below-sensitivity': 1 } });
    expect(table.bins.slice(2, 9).every((b) => b.frames === 0 && b.delivery === null)).toBe(true);
  });

  it('delivery-distance.csv: 10 m bins of counts and a last open row; read back it gives the same table', () => {
    const f = tenFrames();
    const path = join(dir, 'delivery-distance.csv');
    writeDeliveryDistance(path, f.tally);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines[0]).toBe(
      'from_m,to_m,frames,delivered,channel_loss,below_sensitivity,propagation,collision,rx_error,receiver_busy,half_duplex,queue_drop,malformed',
    );
    expect(lines).toHaveLength(1 + 200 + 1);
    expect(lines[3]).toBe('20,30,12,12,0,0,0,0,0,0,0,0,0');
    expect(lines.at(-1)).toBe('2000,,4,0,0,3,0,0,0,0,0,1,0');
    const back = readDeliveryDistance(path)!;
    expect(back.binWidth).toBe(10);
    for (const bins of [{}, { binWidth: 20, maxDistance: 300 }, { binWidth: 100, maxDistance: 1000 }])
      expect(tableOfBinned(back, bins)).toEqual(fleetDeliveryTable(f.tally, bins));
    expect(() => tableOfBinned(back, { binWidth: 25 })).toThrow(/multiples of 10 m/);
    expect(readDeliveryDistance(join(dir, 'none.csv'))).toBeUndefined();
  });

  it('the table of counted outcomes equals the table of the rows they count', () => {
    let s = 7;
    const random = () => (s = (s * 16807) % 2147483647) / 2147483647;
    const outcomes: FrameOutcome[] = ['delivered', 'delivered', 'collision', 'below-sensitivity', 'receiver-busy', 'run-ended'];
    const f = new FleetV2v('x');
    const rows: DistanceRow[] = [];
    for (let i = 0; i < 3000; i++) {
      const distanceM = random() * 700;
      const outcome = outcomes[Math.floor(random() * outcomes.length)];
      rows.push({ id: `m${i}`, from: 'a', to: 'b', outcome, distanceM });
      if (outcome !== 'run-ended') f.tally.add(outcome, distanceM, 0.001);
    }
    for (const bins of [{}, { binWidth: 10, maxDistance: 250 }, { binWidth: 100, maxDistance: 600 }])
      expect(fleetDeliveryTable(f.tally, bins)).toEqual(deliveryTable(rows, bins));
  });

  it('what a receiver dropped as malformed is a loss of its own: in lost_by_reason and its own column, never delivered', () => {
    const f = tenFrames();
    for (let i = 0; i < 5; i++) f.tally.add('malformed', 25, 0.001);
    const v = fleetV2vFigures(f, 2);
    expect(v).toMatchObject({ received: 16, lost: 19, in_flight_at_end: 5 });
    expect(v.lost_by_reason.malformed).toBe(5);
    const path = join(dir, 'delivery-distance-malformed.csv');
    writeDeliveryDistance(path, f.tally);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines[0].split(',').at(-1)).toBe('malformed');
    expect(lines[3]).toBe('20,30,17,12,0,0,0,0,0,0,0,0,5');
  });
});
