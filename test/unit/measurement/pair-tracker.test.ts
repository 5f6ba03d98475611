import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CarSample, Recorder } from '../../../src/measurement/recorder.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-pair-tracker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Cars on a 3 km road of four lanes, half of them driving each way at up to 30 m/s, with a pile-up; 0.1 s a step. */
function road(n: number, seed: number): CarSample[][] {
  let s = seed;
  const random = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const cars = Array.from({ length: n }, (_, i) => {
    const back = i % 2 === 0;
    return { x: random() * 3000, y: (i % 4) * 3.5, yaw: back ? Math.PI : 0, v: i % 7 === 0 ? 0 : 5 + random() * 25 };
  });
  // two cars meeting head-on in one lane, and one parked in the way of another
  Object.assign(cars[1], { x: 1500, y: 3.5, yaw: 0, v: 20 });
  Object.assign(cars[2], { x: 1560, y: 3.5, yaw: Math.PI, v: 20 });
  Object.assign(cars[3], { x: 500, y: 7, yaw: 0, v: 25 });
  Object.assign(cars[7], { x: 560, y: 7, yaw: 0, v: 0 });
  const steps: CarSample[][] = [];
  for (let k = 0; k < 40; k++) {
    steps.push(
      cars.map((c, i) => ({ name: `car${i}`, ...c, steer: 0, yawRate: 0, cmdSpeed: c.v, cmdSteer: 0, braking: false, collided: false })),
    );
    for (const c of cars) c.x += c.v * Math.cos(c.yaw) * 0.1;
  }
  return steps;
}

function record(steps: CarSample[][], fleet: boolean, bodies?: { length: number; width: number }[]) {
  const run = mkdtempSync(join(dir, fleet ? 'fleet-' : 'rows-'));
  const files = { vehicles: 'vehicles.csv', pairs: 'pairs.csv', collisions: 'collisions.csv', v2v: 'v2v.csv', events: 'events.csv' };
  const paths = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, join(run, f)])) as typeof files;
  const names = steps[0].map((c) => c.name);
  const recorder = new Recorder(paths, names, { everySteps: 10 }, bodies, [], { fleet });
  steps.forEach((cars, k) => {
    recorder.recordStep(k * 0.1, cars);
    if (k === 20) recorder.recordCollisions([{ t: 2, a: 'car9', b: 'car4', speedA: 1, speedB: 2 }]);
  });
  recorder.close();
  return { recorder, pairsCsv: readFileSync(paths.pairs, 'utf8'), run };
}

describe('pairs in a fleet: only those near enough for a row', () => {
  for (const bodies of [undefined, Array.from({ length: 120 }, () => ({ length: 4.5, width: 1.8 }))]) {
    it(`writes pairs.csv byte for byte as every pair does, with the same listed pairs and smallest TTC (${bodies ? 'bodies' : 'centre distance'})`, () => {
      const steps = road(120, 5);
      const every = record(steps, false, bodies);
      const near = record(steps, true, bodies);
      expect(near.pairsCsv.split('\n').length).toBeGreaterThan(20);
      expect(near.pairsCsv).toBe(every.pairsCsv);
      const names = (ps: { a: string; b: string }[]) => ps.map((p) => `${p.a}|${p.b}`);
      expect(names(near.recorder.pairs)).toEqual(names(every.recorder.pairs));
      expect(near.recorder.pairs.find((p) => p.a === 'car4' && p.b === 'car9')).toMatchObject({ collision: true, first_collision_t_s: 2 });
      expect(near.recorder.minTtc()).not.toBeNull();
      expect(near.recorder.minTtc()).toBeLessThanOrEqual(5);
      expect(near.recorder.minTtc()).toBe(every.recorder.minTtc());
      // the run-wide minima over the pairs measured are those over every pair
      const smallest = (ps: { min_distance_m: number }[]) => Math.min(...ps.map((p) => p.min_distance_m));
      expect(smallest(near.recorder.allPairs)).toBe(smallest(every.recorder.allPairs));
      // and far fewer pairs were looked at than n(n-1)/2
      expect(near.recorder.allPairs.length).toBeLessThan(every.recorder.allPairs.length / 4);
      // a fleet recorder writes no v2v.csv
      expect(() => readFileSync(join(near.run, 'v2v.csv'))).toThrow(/ENOENT/);
      expect(readFileSync(join(every.run, 'v2v.csv'), 'utf8')).toMatch(/^id,from,to/);
    });
  }
});
