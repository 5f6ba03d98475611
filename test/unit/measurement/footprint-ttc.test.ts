import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { footprintCorners, footprintsOverlap } from '../../../src/core/physics/footprint.js';
import { centreDistanceTtc, footprintOverlapTtc } from '../../../src/core/physics/ttc.js';

const car = { length: 0.58, width: 0.31 };

describe('time to footprint overlap', () => {
  it('head-on in one lane: the gap between the bumpers over the closing speed', () => {
    const ttc = footprintOverlapTtc({ x: 0, y: 0, yaw: 0, v: 10 }, car, { x: 20, y: 0, yaw: Math.PI, v: 10 }, car);
    expect(ttc).toBeCloseTo((20 - 0.58) / 20, 12);
  });

  it('opposite lanes 2 m apart never overlap, where Eq. 3.7 reads 1.5 s', () => {
    const a = { x: -15, y: -1, yaw: 0, v: 10 };
    const b = { x: 15, y: 1, yaw: Math.PI, v: 10 };
    expect(centreDistanceTtc(a, b)).toBeCloseTo((30 * 30 + 2 * 2) / (2 * 10 * 30), 9);
    expect(footprintOverlapTtc(a, car, b, car)).toBeUndefined();
  });

  it('crossing paths: overlap when both reach the crossing together, none when one has cleared it', () => {
    const a = { x: -10, y: 0, yaw: 0, v: 5 };
    expect(footprintOverlapTtc(a, car, { x: 0, y: -10, yaw: Math.PI / 2, v: 5 }, car)).toBeCloseTo((10 - 0.29 - 0.155) / 5, 9);
    expect(footprintOverlapTtc(a, car, { x: 0, y: -20, yaw: Math.PI / 2, v: 5 }, car)).toBeUndefined();
  });

  it('0 when the bodies overlap now; undefined for cars at the same velocity apart', () => {
    expect(footprintOverlapTtc({ x: 0, y: 0, yaw: 0, v: 1 }, car, { x: 0.3, y: 0, yaw: 0, v: 9 }, car)).toBe(0);
    expect(footprintOverlapTtc({ x: 0, y: 0, yaw: 0, v: 10 }, car, { x: 5, y: 0, yaw: 0, v: 10 }, car)).toBeUndefined();
  });

  it('agrees with stepping the footprints forward in time (any poses and speeds)', () => {
    const pose = fc.record({
      x: fc.double({ min: -10, max: 10, noNaN: true }),
      y: fc.double({ min: -10, max: 10, noNaN: true }),
      yaw: fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
      v: fc.double({ min: 0, max: 10, noNaN: true }),
    });
    fc.assert(
      fc.property(pose, pose, (a, b) => {
        const ttc = footprintOverlapTtc(a, car, b, car);
        // bodies a nanometre larger or smaller: exact touching is decided by rounding in either computation
        const at = (p: typeof a, t: number, grow: number) =>
          footprintCorners(
            { x: p.x + p.v * Math.cos(p.yaw) * t, y: p.y + p.v * Math.sin(p.yaw) * t, yaw: p.yaw },
            { length: car.length + grow, width: car.width + grow },
          );
        const overlapAt = (t: number, grow: number) => footprintsOverlap(at(a, t, grow), at(b, t, grow));
        if (ttc === undefined) {
          for (let t = 0; t <= 10; t += 0.01) expect(overlapAt(t, -1e-9)).toBe(false);
        } else {
          expect(overlapAt(ttc + 1e-9, 1e-9)).toBe(true);
          if (ttc > 1e-6) expect(overlapAt(ttc - 1e-6, -1e-9)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
