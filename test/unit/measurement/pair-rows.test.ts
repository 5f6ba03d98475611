import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyGap, placeBody } from '../../../src/core/physics/footprint.js';
import { centreDistance, closingSpeed, footprintOverlapTtc } from '../../../src/core/physics/ttc.js';
import { PAIR_ROW_DISTANCE_M, PAIR_ROW_TTC_S, pairRowKept, ttcLowerBound } from '../../../src/measurement/pair-rows.js';
import { type CarSample, type PairFigures, Recorder } from '../../../src/measurement/recorder.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function recorderIn(names: string[], bodies?: { length: number; width: number }[]) {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-pairs-'));
  dirs.push(dir);
  const files = { vehicles: 'vehicles.csv', pairs: 'pairs.csv', collisions: 'collisions.csv', v2v: 'v2v.csv', events: 'events.csv' };
  const paths = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, join(dir, f)])) as typeof files;
  return { recorder: new Recorder(paths, names, { everySteps: 10 }, bodies), pairsCsv: paths.pairs };
}

/** Cars on a 300 m square, some pairs meeting head-on, others far apart; moved 0.1 s a step. */
function fleet(n: number, seed: number): CarSample[][] {
  let s = seed;
  const random = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const cars = Array.from({ length: n }, (_, i) => ({
    x: random() * 300,
    y: random() * 300,
    yaw: random() * 2 * Math.PI,
    v: i % 5 === 0 ? 0 : random() * 20,
  }));
  const steps: CarSample[][] = [];
  for (let k = 0; k < 150; k++) {
    steps.push(
      cars.map((c, i) => ({ name: `car${i}`, ...c, steer: 0, yawRate: 0, cmdSpeed: c.v, cmdSteer: 0, braking: false, collided: false })),
    );
    for (const c of cars) {
      c.x += c.v * Math.cos(c.yaw) * 0.1;
      c.y += c.v * Math.sin(c.yaw) * 0.1;
      c.yaw += (random() - 0.5) * 0.2;
    }
  }
  return steps;
}

/** Every pair at every step, as the recorder did before rows were selected. */
function bruteForce(steps: CarSample[][], bodies: { length: number; width: number }[], geometricTtc = false) {
  const n = steps[0].length;
  const minima: { d: number; gap: number; ttc: number | null }[] = [];
  const rows = new Set<string>();
  steps.forEach((cars, step) => {
    const placed = cars.map((c, i) => placeBody(c, bodies[i]));
    let k = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++, k++) {
        const d = centreDistance(cars[i], cars[j]);
        const closing = closingSpeed(cars[i], cars[j]);
        const ttc = geometricTtc ? footprintOverlapTtc(cars[i], bodies[i], cars[j], bodies[j]) : closing > 1e-9 ? d / closing : undefined;
        const m = (minima[k] ??= { d: Infinity, gap: Infinity, ttc: null });
        m.d = Math.min(m.d, d);
        m.gap = Math.min(m.gap, bodyGap(placed[i], placed[j]));
        if (ttc !== undefined) m.ttc = m.ttc === null ? ttc : Math.min(m.ttc, ttc);
        if (pairRowKept(d, ttc)) rows.add(`${step}|car${i}|car${j}`);
      }
    }
  });
  return { minima, rows };
}

describe('pairs.csv rows: near or soon-colliding pairs only', () => {
  it('keeps a pair within the distance or under the TTC bound, and no other', () => {
    expect(pairRowKept(PAIR_ROW_DISTANCE_M, undefined)).toBe(true);
    expect(pairRowKept(PAIR_ROW_DISTANCE_M + 0.01, undefined)).toBe(false);
    expect(pairRowKept(100, PAIR_ROW_TTC_S)).toBe(true);
    expect(pairRowKept(100, PAIR_ROW_TTC_S + 0.01)).toBe(false);
  });

  it('the TTC lower bound never exceeds the centre-distance TTC', () => {
    for (const [d, va, vb, ya, yb] of [
      [30, 10, 10, 0, Math.PI],
      [12, 3, 0, 0.3, 2],
      [5, 0, 8, 1, 4],
    ]) {
      const a = { x: 0, y: 0, yaw: ya, v: va };
      const b = { x: d, y: 0, yaw: yb, v: vb };
      const closing = closingSpeed(a, b);
      if (closing > 0) expect(ttcLowerBound(d, 0.3, 0.3, va, vb)).toBeLessThanOrEqual(d / closing);
    }
    expect(ttcLowerBound(10, 0.3, 0.3, 0, 0)).toBe(Infinity);
    expect(ttcLowerBound(0.5, 0.3, 0.3, 1, 1)).toBe(0);
  });

  it('writes the same rows as the rule applied to every pair, and every pair keeps the minima it had', () => {
    const steps = fleet(40, 7);
    const n = steps[0].length;
    const { recorder, pairsCsv } = recorderIn(steps[0].map((c) => c.name));
    steps.forEach((cars, k) => recorder.recordStep(k * 0.1, cars));
    recorder.close();
    const rows = parse(readFileSync(pairsCsv, 'utf8'), { columns: true }) as Record<string, string>[];
    const reference = bruteForce(
      steps,
      steps[0].map(() => ({ length: 0.58, width: 0.31 })),
    );
    expect(new Set(rows.map((r) => `${Math.round(Number(r.t_s) * 10)}|${r.a}|${r.b}`))).toEqual(reference.rows);
    expect(rows.length).toBe(reference.rows.size);
    expect(rows.length).toBeLessThan((steps.length * n * (n - 1)) / 2 / 4);
    recorder.allPairs.forEach((p: PairFigures, k: number) => {
      expect(p.min_distance_m).toBe(reference.minima[k].d);
      expect(p.min_ttc_s).toBe(reference.minima[k].ttc);
    });
    const listed = new Set(recorder.pairs.map((p) => `${p.a}|${p.b}`));
    expect(listed).toEqual(new Set(rows.map((r) => `${r.a}|${r.b}`)));
  });

  it('with the cars\u2019 bodies, every pair\u2019s smallest gap and geometric TTC are the ones taken at every step, and its rows the rule\u2019s', () => {
    const steps = fleet(30, 11);
    const bodies = steps[0].map(() => ({ length: 0.58, width: 0.31 }));
    const { recorder, pairsCsv } = recorderIn(
      steps[0].map((c) => c.name),
      bodies,
    );
    steps.forEach((cars, k) => recorder.recordStep(k * 0.1, cars));
    recorder.close();
    const reference = bruteForce(steps, bodies, true);
    recorder.allPairs.forEach((p, k) => {
      expect(p.min_gap_m).toBe(reference.minima[k].gap);
      expect(p.min_distance_m).toBe(reference.minima[k].d);
      expect(p.min_ttc_s).toBe(reference.minima[k].ttc);
    });
    const rows = parse(readFileSync(pairsCsv, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(new Set(rows.map((r) => `${Math.round(Number(r.t_s) * 10)}|${r.a}|${r.b}`))).toEqual(reference.rows);
  });
});
