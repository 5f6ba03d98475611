import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pooled, rebinned } from '../../../src/measurement/binned-outcomes.js';
import { DistanceOutcomes } from '../../../src/measurement/distance-outcomes.js';
import { readDeliveryDistance, writeDeliveryDistance } from '../../../src/run/delivery-distance-file.js';
import { deliveryDistanceCsv } from '../../../src/sweep/delivery-distance-table.js';
import type { SweepSpec } from '../../../src/sweep/sweep-folder.js';
import { deliveryByPointFigure, deliveryOutcomesFigure } from '../../../src/ui/report/delivery-distance-figure.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-delivery-distance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a run's delivery against distance (every simulated run with V2V)", () => {
  const counted = () => {
    const d = new DistanceOutcomes();
    for (let i = 0; i < 8; i++) d.add('delivered', 10 + i);
    d.add('collision', 20);
    d.add('delivered', 120);
    d.add('below-sensitivity', 149.9);
    d.add('queue-drop', undefined);
    return d;
  };

  it('counts v2v.csv outcomes in 50 m bins up to the furthest frame, then a row of what has no distance', () => {
    const file = join(dir, 'delivery-distance.csv');
    writeDeliveryDistance(file, counted());
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines[0]).toBe(
      'from_m,to_m,frames,delivered,channel_loss,below_sensitivity,propagation,collision,rx_error,receiver_busy,half_duplex,queue_drop,malformed',
    );
    expect(lines.slice(1)).toEqual([
      '0,50,9,8,0,0,0,1,0,0,0,0,0',
      '50,100,0,0,0,0,0,0,0,0,0,0,0',
      '100,150,2,1,0,1,0,0,0,0,0,0,0',
      '150,,1,0,0,0,0,0,0,0,0,1,0',
    ]);
    expect(readDeliveryDistance(file)).toEqual({
      binWidth: 50,
      counts: { delivered: [8, 0, 1], 'below-sensitivity': [0, 0, 1], collision: [1, 0, 0] },
    });
  });

  it("sums a fleet run's 10 m bins into 50 m ones and pools a point's runs bin by bin", () => {
    const fine = { binWidth: 10, counts: { delivered: [1, 2, 3, 4, 5, 6], collision: [0, 0, 0, 0, 0, 1] } };
    expect(rebinned(fine, 50)).toEqual({ binWidth: 50, counts: { delivered: [15, 6], collision: [0, 1] } });
    expect(() => rebinned(fine, 25)).toThrow(/cannot be summed/);
    expect(pooled([rebinned(fine, 50), { binWidth: 50, counts: { delivered: [1, 1, 1] } }])).toEqual({
      binWidth: 50,
      counts: { delivered: [16, 7, 1], collision: [0, 1] },
    });
  });

  it("writes the sweep's table per point and bin, and draws outcome shares that add up to 1 per bin", () => {
    const spec = { mode: { type: 'grid', points: [] }, axes: [{ path: 'traffic.density', values: [] }] } as unknown as SweepSpec;
    const point = (v: number, delivered: number[], lost: number[]) => ({
      values: { 'traffic.density': { text: `${v}/km`, value: v, unit: '/km' } },
      runs: 2,
      binned: { binWidth: 50, counts: { delivered, 'receiver-busy': lost } },
    });
    const points = [point(20, [9, 3], [1, 1]), point(80, [5, 0], [5, 4])];
    const csv = deliveryDistanceCsv(spec, points, [{ values: points[0].values } as never])!
      .trim()
      .split('\n');
    expect(csv[0]).toMatch(/^traffic\.density_per_km,runs,from_m,to_m,frames,delivery_ratio,delivered,/);
    expect(csv.slice(1).map((l) => l.split(',').slice(0, 6).join(','))).toEqual([
      '20,2,0,50,10,0.9',
      '20,2,50,100,4,0.75',
      '80,2,0,50,10,0.5',
      '80,2,50,100,4,0',
    ]);
    const bars = deliveryOutcomesFigure(points[1].binned, 't') as unknown as {
      data: { values: { from: number; low: number; high: number }[] };
    };
    const first = bars.data.values.filter((v) => v.from === 0);
    expect(first.map((v) => [v.low, v.high])).toEqual([
      [0, 0.5],
      [0.5, 1],
    ]);
    const lines = deliveryByPointFigure(
      points.map((p) => ({ label: p.values['traffic.density'].text, binned: p.binned })),
      't',
    ) as unknown as { data: { values: { series: string; distance: number; ratio: number }[] } };
    expect(lines.data.values.map((v) => [v.series, v.distance, v.ratio])).toEqual([
      ['20/km', 25, 0.9],
      ['20/km', 75, 0.75],
      ['80/km', 25, 0.5],
      ['80/km', 75, 0],
    ]);
    expect(deliveryOutcomesFigure({ binWidth: 50, counts: {} }, 't')).toBeUndefined();
  });
});
