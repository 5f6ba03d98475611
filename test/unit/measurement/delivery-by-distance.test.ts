import { describe, expect, it } from 'vitest';
import type { MeasuredCbr } from '../../../src/measurement/channel-busy-log.js';
import {
  broadcastRows,
  cbrDeviation,
  type DistanceRow,
  deliveryTable,
  orderReasons,
  tableDeviation,
} from '../../../src/measurement/delivery-by-distance.js';

let seq = 0;
const row = (distanceM: number, outcome: string, to = 'b', id = `a-${seq++}`): DistanceRow => ({ id, from: 'a', to, outcome, distanceM });

describe('delivery against distance', () => {
  it('bins of 50 m to 500 m: delivery ratio and each reason as a share of the bin; in-flight, unknown and far rows left out', () => {
    const rows = [
      row(10, 'delivered'),
      row(49.999, 'delivered'),
      row(20, 'collision'),
      row(30, 'receiver-busy'),
      row(50, 'delivered'), // the second bin starts at 50 m
      row(420, 'below-sensitivity'),
      row(430, 'propagation'),
      row(440, 'below-sensitivity'),
      row(470, 'delivered'),
      row(15, 'run-ended'),
      row(Number.NaN, 'delivered'),
      row(500, 'delivered'),
      row(800, 'below-sensitivity'),
    ];
    const t = deliveryTable(rows);
    expect(t.bins).toHaveLength(10);
    expect(t.bins.map((b) => [b.from, b.to])).toEqual(Array.from({ length: 10 }, (_, k) => [k * 50, k * 50 + 50]));
    expect(t.bins[0]).toEqual({
      from: 0,
      to: 50,
      frames: 4,
      delivered: 2,
      delivery: 0.5,
      losses: { collision: 0.25, 'receiver-busy': 0.25 },
    });
    expect(t.bins[1]).toMatchObject({ frames: 1, delivered: 1, delivery: 1, losses: {} });
    expect(t.bins[2]).toMatchObject({ frames: 0, delivered: 0, delivery: null, losses: {} });
    expect(t.bins[8]).toEqual({
      from: 400,
      to: 450,
      frames: 3,
      delivered: 0,
      delivery: 0,
      losses: { 'below-sensitivity': 0.666667, propagation: 0.333333 },
    });
    expect(t.bins[9]).toMatchObject({ frames: 1, delivery: 1 });
    // the reasons in frames.ts's order, not the order they came in
    expect(t.reasons).toEqual(['below-sensitivity', 'propagation', 'collision', 'receiver-busy']);
    for (const b of t.bins.filter((x) => x.frames))
      expect(b.delivery! + Object.values(b.losses).reduce((s, v) => s + v, 0)).toBeCloseTo(1, 5);
  });

  it('other widths and a range that is not a whole number of bins: the last bin ends at the range', () => {
    const t = deliveryTable([row(95, 'delivered'), row(101, 'delivered')], { binWidth: 40, maxDistance: 100 });
    expect(t.bins.map((b) => [b.from, b.to, b.frames])).toEqual([
      [0, 40, 0],
      [40, 80, 0],
      [80, 100, 1],
    ]);
    expect(() => deliveryTable([], { binWidth: 0 })).toThrow(RangeError);
  });

  it('broadcast frames are those with a row for every car but the sender', () => {
    const cars = ['a', 'b', 'c'];
    const rows = [
      row(10, 'delivered', 'b', 'beacon-1'),
      row(12, 'collision', 'c', 'beacon-1'),
      row(10, 'delivered', 'b', 'brake-1'), // to b alone
    ];
    expect(broadcastRows(rows, cars).map((r) => r.id)).toEqual(['beacon-1', 'beacon-1']);
    const toB = rows.filter((r) => r.to === 'b');
    expect(broadcastRows(toB, ['a', 'b'])).toEqual(toB);
  });

  it('unknown reasons come after the known ones, by name', () => {
    expect(orderReasons(['zz', 'queue-drop', 'aa', 'below-sensitivity'])).toEqual(['below-sensitivity', 'queue-drop', 'aa', 'zz']);
  });
});

describe('mean absolute deviation between two tables', () => {
  it('over the bins both have frames in, for delivery and each reason (a missing reason is a share of 0)', () => {
    const a = deliveryTable([
      row(10, 'delivered'),
      row(10, 'delivered'), // bin 0: 1.0
      row(60, 'delivered'),
      row(60, 'collision'), // bin 1: 0.5, collision 0.5
      row(110, 'delivered'), // bin 2: only in a
    ]);
    const b = deliveryTable([
      row(10, 'delivered'),
      row(10, 'collision'),
      row(10, 'delivered'),
      row(10, 'delivered'), // bin 0: 0.75, collision 0.25
      row(60, 'below-sensitivity'),
      row(60, 'delivered'), // bin 1: 0.5, below-sensitivity 0.5
      row(460, 'below-sensitivity'), // only in b
    ]);
    const d = tableDeviation(a, b);
    expect(d.bins).toBe(2);
    expect(d.delivery).toBeCloseTo((0.25 + 0) / 2, 6);
    expect(d.losses).toEqual({ 'below-sensitivity': 0.25, collision: 0.375 });
    expect(tableDeviation(a, a)).toEqual({ bins: 3, delivery: 0, losses: { collision: 0 } });
  });

  it('is null with no bin in common; tables of other bins are refused', () => {
    const near = deliveryTable([row(10, 'delivered')]);
    const far = deliveryTable([row(300, 'collision')]);
    expect(tableDeviation(near, far)).toEqual({ bins: 0, delivery: null, losses: {} });
    expect(() => tableDeviation(near, deliveryTable([], { binWidth: 25 }))).toThrow(/different bins/);
  });
});

describe('CBR deviation', () => {
  const cbr = (mean: number, perCar: [string, number][]): MeasuredCbr => ({
    method: 'medium-state',
    window_s: 0.1,
    windows: 10,
    mean,
    p95: mean,
    max: mean,
    per_car: perCar.map(([vehicle, m]) => ({ vehicle, mean: m, max: m })),
  });

  it('the difference of the means, and the MAD of the per-car means over the cars both have', () => {
    const a = cbr(0.2, [
      ['car0', 0.1],
      ['car1', 0.3],
    ]);
    const b = cbr(0.25, [
      ['car0', 0.2],
      ['car1', 0.3],
      ['car2', 0.9],
    ]);
    expect(cbrDeviation(a, b)).toEqual({ mean: 0.05, perCar: 0.05 });
    expect(cbrDeviation(a, cbr(0.2, [['car9', 0.2]]))).toEqual({ mean: 0, perCar: null });
  });

  it('is null when a run measured no CBR (a channel without a medium state)', () => {
    expect(cbrDeviation(undefined, cbr(0.1, []))).toBeNull();
  });
});
