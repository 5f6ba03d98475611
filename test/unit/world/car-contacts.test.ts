import { describe, expect, it } from 'vitest';
import { loadMap } from '../../../src/core/map/load-map.js';
import { footprintHitsWall } from '../../../src/core/map/wall-collision.js';
import { type Footprint, footprintCorners, footprintsOverlap } from '../../../src/core/physics/footprint.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { BoxSweep } from '../../../src/util/box-sweep.js';
import { CarContacts } from '../../../src/world/car-contacts.js';
import { World } from '../../../src/world/world.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const { write } = scenarioWorkspace('car-contacts');

function lcg(seed: number) {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

describe('BoxSweep', () => {
  it('finds exactly the overlapping pairs a test of every pair finds (touching counts, NaN overlaps nothing), call after call', () => {
    const random = lcg(3);
    const n = 300;
    const minX = new Float64Array(n);
    const maxX = new Float64Array(n);
    const minY = new Float64Array(n);
    const maxY = new Float64Array(n);
    const sweep = new BoxSweep(n);
    for (let call = 0; call < 5; call++) {
      for (let i = 0; i < n; i++) {
        const x = random() * 200;
        const y = random() * 20;
        const w = random() * 4;
        minX[i] = x;
        maxX[i] = x + w;
        minY[i] = y;
        maxY[i] = y + random() * 4;
      }
      // two boxes that only touch, and a box with NaN on top of others
      [minX[0], maxX[0], minY[0], maxY[0]] = [500, 501, 0, 1];
      [minX[1], maxX[1], minY[1], maxY[1]] = [501, 502, 1, 2];
      [minX[2], maxX[2], minY[2], maxY[2]] = [Number.NaN, 502, 0, 2];
      const brute = new Set<string>();
      for (let i = 0; i < n; i++)
        for (let j = i + 1; j < n; j++)
          if (minX[i] <= maxX[j] && minX[j] <= maxX[i] && minY[i] <= maxY[j] && minY[j] <= maxY[i]) brute.add(`${i},${j}`);
      const found: string[] = [];
      sweep.forEachOverlap(minX, maxX, minY, maxY, (i, j) => {
        expect(i).toBeLessThan(j);
        found.push(`${i},${j}`);
      });
      expect(found.length).toBe(new Set(found).size);
      expect(new Set(found)).toEqual(brute);
      expect(brute.has('0,1')).toBe(true);
      expect([...brute].some((p) => p.split(',').includes('2'))).toBe(false);
    }
  });
});

describe('CarContacts', () => {
  it('gives the overlapping footprints of every pair, in pair order, and leaves out the pairs it is told to skip', () => {
    const random = lcg(11);
    const n = 200;
    const dims = { length: 4.5, width: 1.8 };
    const contacts = new CarContacts(n);
    for (let step = 0; step < 5; step++) {
      const footprints: Footprint[] = Array.from({ length: n }, () =>
        footprintCorners({ x: random() * 400, y: random() * 12, yaw: random() * 2 * Math.PI }, dims),
      );
      const skip = (i: number, j: number) => (i + j) % 7 === 0;
      const brute: [number, number][] = [];
      for (let i = 0; i < n; i++)
        for (let j = i + 1; j < n; j++) if (!skip(i, j) && footprintsOverlap(footprints[i], footprints[j])) brute.push([i, j]);
      expect(brute.length).toBeGreaterThan(5);
      expect(contacts.find(footprints, skip)).toEqual(brute);
    }
  });
});

describe('World collisions with a sweep (16 cars or more)', () => {
  it('gives the events a test of every pair gives, in its order: each car’s pairs, then its wall', async () => {
    const cars = Array.from(
      { length: 24 },
      (_, i) => `  - { name: car${i}, start: { x: ${-90 + i * 7}, y: -1, yaw: 0, speed: 0 }, controller: { type: idle } }`,
    );
    const s = await loadScenario(write(`name: t\nmap: maps/highway.yaml\nduration: 1s\nvehicles:\n${cars.join('\n')}\n`));
    // pairs of cars 0.3 m apart (they overlap), every third one against the upper wall: placed after validation, which refuses them
    s.vehicles.forEach((v, i) => {
      v.start = { ...v.start, x: -90 + Math.floor(i / 2) * 8 + (i % 2) * 0.3, y: i % 3 === 0 ? 1.9 : -1 };
    });
    const grid = await loadMap(s.mapFile!);
    const world = new World(s, grid);
    const expected: { a: string; b: string }[] = [];
    const n = world.cars.length;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++)
        if (footprintsOverlap(world.cars[i].footprint, world.cars[j].footprint)) expected.push({ a: `car${i}`, b: `car${j}` });
      if (footprintHitsWall(world.cars[i].footprint, grid)) expected.push({ a: `car${i}`, b: 'wall' });
    }
    const events = world.step().map((e) => ({ a: e.a, b: e.b }));
    expect(expected.filter((e) => e.b === 'wall').length).toBeGreaterThan(3);
    expect(expected.length).toBeGreaterThan(10);
    expect(events).toEqual(expected);
    // collided cars are frozen: no pair of two collided cars is reported again
    expect(world.step().filter((e) => e.b !== 'wall')).toEqual([]);
  });
});
