import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { laneCentreY } from '../../../src/core/map/straight-road.js';
import { footprintCorners, footprintsOverlap } from '../../../src/core/physics/footprint.js';
import { laneCounts, MIN_BUMPER_GAP_M, placeTraffic, roadCapacity, trafficCount } from '../../../src/scenario/traffic-placement.js';
import { createRandom } from '../../../src/util/random.js';

const road = { length: 2000, lanes: 3, laneWidth: 3.5 };
const BMW_LENGTH = 4.508;

/** Centre gaps between neighbouring cars of each lane, the wrap from the front back to the back left out. */
function laneGaps(cars: { x: number; lane: number }[], lanes: number): number[][] {
  return Array.from({ length: lanes }, (_, lane) => {
    const xs = cars.filter((c) => c.lane === lane).map((c) => c.x);
    return xs.slice(1).map((x, i) => x - xs[i]);
  });
}

describe('traffic placement', () => {
  it('puts density x length cars on the road, as evenly over the lanes as can be', () => {
    expect(trafficCount(120, 2000)).toBe(240);
    expect(trafficCount(120, 2500)).toBe(300);
    expect(trafficCount(0.2, 2000)).toBe(0);
    expect(laneCounts(240, 3)).toEqual([80, 80, 80]);
    expect(laneCounts(241, 3)).toEqual([81, 80, 80]);
    const cars = placeTraffic(road, 241, BMW_LENGTH, 0, createRandom(1));
    expect(cars).toHaveLength(241);
    expect([0, 1, 2].map((lane) => cars.filter((c) => c.lane === lane).length)).toEqual([81, 80, 80]);
  });

  it('spaces a lane evenly, every centre on the road and on its lane centre, sorted back to front', () => {
    const cars = placeTraffic(road, 240, BMW_LENGTH, 0, createRandom(1));
    for (const c of cars) {
      expect(c.x).toBeGreaterThanOrEqual(0);
      expect(c.x).toBeLessThan(2000);
      expect(c.y).toBe(laneCentreY(road, c.lane));
    }
    expect(cars.map((c) => c.x)).toEqual([...cars.map((c) => c.x)].sort((a, b) => a - b));
    for (const gaps of laneGaps(cars, 3)) for (const gap of gaps) expect(gap).toBeCloseTo(25, 9);
    expect(new Set(cars.map((c) => c.y))).toEqual(new Set([-3.5, 0, 3.5]));
  });

  it('staggers the lanes: no car has one abreast in the next lane', () => {
    const cars = placeTraffic(road, 240, BMW_LENGTH, 0, createRandom(1));
    const inLane = (lane: number) => cars.filter((c) => c.lane === lane).map((c) => c.x);
    for (const x of inLane(1)) {
      const nearest = Math.min(...inLane(0).map((x0) => Math.abs(x0 - x)));
      expect(nearest).toBeCloseTo(25 / 3, 9);
    }
  });

  it('with jitter, moves cars by up to that share of half the spare room, never closer than the minimum gap', () => {
    const spacing = 25;
    const halfRoom = (spacing - BMW_LENGTH - MIN_BUMPER_GAP_M) / 2;
    const even = placeTraffic(road, 240, BMW_LENGTH, 0, createRandom(7));
    const jittered = placeTraffic(road, 240, BMW_LENGTH, 0.5, createRandom(7));
    const moved = jittered.map((c) => Math.min(...even.filter((e) => e.lane === c.lane).map((e) => Math.abs(e.x - c.x))));
    expect(Math.max(...moved)).toBeLessThanOrEqual(0.5 * halfRoom + 1e-9);
    expect(Math.max(...moved)).toBeGreaterThan(0.4 * halfRoom);
    for (const gaps of laneGaps(jittered, 3)) for (const gap of gaps) expect(gap).toBeGreaterThan(BMW_LENGTH + MIN_BUMPER_GAP_M);
  });

  it('is the same for the same seed, and another for another seed', () => {
    const a = placeTraffic(road, 240, BMW_LENGTH, 1, createRandom(3));
    expect(placeTraffic(road, 240, BMW_LENGTH, 1, createRandom(3))).toEqual(a);
    expect(placeTraffic(road, 240, BMW_LENGTH, 1, createRandom(4))).not.toEqual(a);
  });

  it('no two cars overlap, up to the road capacity, at any jitter (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 3000 }),
        fc.integer({ min: 1, max: 4 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.integer(),
        (length, lanes, jitter, fill, seed) => {
          const r = { length, lanes, laneWidth: 3.5 };
          const count = Math.max(1, Math.floor(roadCapacity(r, BMW_LENGTH) * fill));
          if (count > 1000) return;
          const cars = placeTraffic(r, count, BMW_LENGTH, jitter, createRandom(seed));
          const prints = cars.map((c) => footprintCorners({ x: c.x, y: c.y, yaw: 0 }, { length: BMW_LENGTH, width: 1.61 }));
          for (let i = 0; i < prints.length; i++) {
            expect(cars[i].x).toBeGreaterThanOrEqual(0);
            expect(cars[i].x).toBeLessThan(length);
            for (let j = i + 1; j < prints.length && cars[j].x - cars[i].x < BMW_LENGTH + MIN_BUMPER_GAP_M; j++) {
              expect(footprintsOverlap(prints[i], prints[j])).toBe(false);
              if (cars[i].lane === cars[j].lane) expect(cars[j].x - cars[i].x).toBeGreaterThanOrEqual(BMW_LENGTH + MIN_BUMPER_GAP_M - 1e-9);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
