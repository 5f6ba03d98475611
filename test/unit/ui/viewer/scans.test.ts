import { describe, expect, it } from 'vitest';
import { lastIndexAtOrBefore, ScanIndex } from '../../../../src/ui/viewer/scans.js';

const ranges = (n: number, base: number) => Array.from({ length: n }, (_, i) => base + i / 1000).join(';');

describe('ScanIndex', () => {
  it("returns each car's latest scan at or before t, none before its first", () => {
    const idx = new ScanIndex();
    idx.ingest(['t_s,vehicle,angle_min,angle_increment,ranges', `0,car0,-1,0.5,${ranges(5, 1)}`, `0.1,car0,-1,0.5,${ranges(5, 2)}`]);
    idx.ingest([`0.05,car1,-2,0.25,${ranges(5, 3)}`]);
    expect(idx.at(0.04)).toEqual([{ vehicle: 'car0', t: 0, angleMin: -1, angleIncrement: 0.5, ranges: [1, 1.001, 1.002, 1.003, 1.004] }]);
    const at = idx.at(0.1);
    expect(at.map((s) => [s.vehicle, s.t, s.ranges[0]])).toEqual([
      ['car0', 0.1, 2],
      ['car1', 0.05, 3],
    ]);
  });

  it('thins a 1080-beam scan to at most the drawn number of rays, widening the increment to match', () => {
    const idx = new ScanIndex();
    idx.ingest(['t_s,vehicle,angle_min,angle_increment,ranges', `0,car0,-2.35,0.004,${ranges(1080, 5)}`]);
    const [scan] = idx.at(1, 360);
    expect(scan.ranges.length).toBe(360);
    expect(scan.angleIncrement).toBeCloseTo(0.012, 12);
    expect(scan.ranges[1]).toBe(5.003);
  });
});

describe('lastIndexAtOrBefore', () => {
  it.each([
    [-1, -1],
    [0, 0],
    [0.15, 1],
    [0.2, 2],
    [9, 2],
  ])('t=%s -> %s', (t, i) => {
    expect(lastIndexAtOrBefore([0, 0.1, 0.2], t)).toBe(i);
  });
});
