import { describe, expect, it } from 'vitest';
import { F1TENTH_DEFAULT_PARAMS as P } from '../../../../src/core/physics/defaults.js';
import {
  bodyGap,
  findCollisions,
  footprintCorners,
  footprintsOverlap,
  type Pose,
  placeBody,
} from '../../../../src/core/physics/footprint.js';
import { GJK_REFERENCE } from './f1tenth-gym-reference.js';

const L = P.length; // 0.58
const W = P.width; // 0.31
const body = (pose: Pose) => footprintCorners(pose, P);

describe('footprintCorners', () => {
  it('is the length x width rectangle centred on (x, y), in get_vertices order rl, rr, fr, fl', () => {
    expect(Array.from(body({ x: 1, y: 2, yaw: 0 }))).toEqual([
      1 - L / 2,
      2 + W / 2,
      1 - L / 2,
      2 - W / 2,
      1 + L / 2,
      2 - W / 2,
      1 + L / 2,
      2 + W / 2,
    ]);
  });

  it('rotates about the centre', () => {
    const f = body({ x: 0, y: 0, yaw: Math.PI / 2 });
    // Front-right corner: (L/2, -W/2) in the body frame -> (W/2, L/2) in the world.
    expect(f[4]).toBeCloseTo(W / 2, 12);
    expect(f[5]).toBeCloseTo(L / 2, 12);
  });

  it('writes into a supplied array', () => {
    const out = new Float64Array(8);
    expect(footprintCorners({ x: 0, y: 0, yaw: 0 }, P, out)).toBe(out);
  });
});

describe('footprintsOverlap table', () => {
  // gjk: what f1tenth_gym's collision() returned for the same two poses (run at commit 4fdb9c7).
  const rows: { name: string; a: Pose; b: Pose; gjk: boolean; overlap: boolean }[] = [
    { name: 'separated along x', a: { x: 0, y: 0, yaw: 0 }, b: { x: 1, y: 0, yaw: 0 }, gjk: false, overlap: false },
    { name: 'small gap nose to tail', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0.59, y: 0, yaw: 0 }, gjk: false, overlap: false },
    { name: 'touching nose to tail', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0.58, y: 0, yaw: 0 }, gjk: false, overlap: true },
    { name: 'touching side by side', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0, y: 0.31, yaw: 0 }, gjk: false, overlap: true },
    { name: 'touching corner to corner', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0.58, y: 0.31, yaw: 0 }, gjk: false, overlap: true },
    { name: '1 cm overlap nose to tail', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0.57, y: 0, yaw: 0 }, gjk: true, overlap: true },
    { name: 'rotated 45 deg, overlapping', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0.5, y: 0, yaw: Math.PI / 4 }, gjk: true, overlap: true },
    {
      name: 'rotated 45 deg, corner just inside',
      a: { x: 0, y: 0, yaw: 0 },
      b: { x: 0.6, y: 0, yaw: Math.PI / 4 },
      gjk: true,
      overlap: true,
    },
    { name: 'head-on, overlapping', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0.5, y: 0.05, yaw: Math.PI }, gjk: true, overlap: true },
    { name: 'head-on, clear', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0.7, y: 0, yaw: Math.PI }, gjk: false, overlap: false },
    { name: 'same pose', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0, y: 0, yaw: 0 }, gjk: true, overlap: true },
    { name: 'crossing at right angles', a: { x: 0, y: 0, yaw: 0 }, b: { x: 0, y: 0, yaw: Math.PI / 2 }, gjk: true, overlap: true },
  ];
  it.each(rows)('$name', ({ a, b, gjk, overlap }) => {
    expect(footprintsOverlap(body(a), body(b))).toBe(overlap);
    expect(footprintsOverlap(body(b), body(a))).toBe(overlap);
    expect(footprintsOverlap(body(a), body(b), { touchingCounts: false })).toBe(gjk);
    expect(footprintsOverlap(body(b), body(a), { touchingCounts: false })).toBe(gjk);
  });

  it('rotated 45 deg: the corner reaching exactly the other car is the boundary', () => {
    // Reach of a 45-deg-rotated body along -x: (L/2 + W/2) * cos(45 deg) = 0.3147 m.
    const reach = (L / 2 + W / 2) * Math.SQRT1_2;
    const a = body({ x: 0, y: 0, yaw: 0 });
    expect(footprintsOverlap(a, body({ x: L / 2 + reach - 1e-9, y: 0, yaw: Math.PI / 4 }))).toBe(true);
    expect(footprintsOverlap(a, body({ x: L / 2 + reach + 1e-9, y: 0, yaw: Math.PI / 4 }))).toBe(false);
  });

  it('agrees with f1tenth_gym GJK on 60 random close pairs', () => {
    let hits = 0;
    for (const { a, b, gjk } of GJK_REFERENCE) {
      const fa = body({ x: a[0], y: a[1], yaw: a[2] });
      const fb = body({ x: b[0], y: b[1], yaw: b[2] });
      expect(footprintsOverlap(fa, fb)).toBe(gjk);
      expect(footprintsOverlap(fa, fb, { touchingCounts: false })).toBe(gjk);
      if (gjk) hits++;
    }
    expect(hits).toBe(36); // the table has both outcomes
  });
});

describe('findCollisions (collision_multiple)', () => {
  it('marks each colliding body with the last partner visited, -1 otherwise', () => {
    const bodies = [
      body({ x: 0, y: 0, yaw: 0 }),
      body({ x: 0.5, y: 0, yaw: 0 }),
      body({ x: 1.0, y: 0, yaw: 0 }),
      body({ x: 10, y: 10, yaw: 1 }),
    ];
    // Pairs in order: (0,1) hit, (1,2) hit -> 1 ends up pointing at 2, as the gym's loop does.
    expect(Array.from(findCollisions(bodies))).toEqual([1, 2, 1, -1]);
  });

  it('gives the same answer as checking every pair directly', () => {
    const bodies = GJK_REFERENCE.flatMap(({ a, b }) => [
      body({ x: a[0], y: a[1], yaw: a[2] }),
      body({ x: b[0], y: b[1], yaw: b[2] }),
    ]).slice(0, 50);
    // collision_multiple's loop without the bounding-circle shortcut.
    const expected = new Array<number>(bodies.length).fill(-1);
    for (let i = 0; i < bodies.length - 1; i++) {
      for (let j = i + 1; j < bodies.length; j++) {
        if (footprintsOverlap(bodies[i], bodies[j])) {
          expected[i] = j;
          expected[j] = i;
        }
      }
    }
    expect(expected.filter((k) => k >= 0).length).toBeGreaterThan(0);
    expect(Array.from(findCollisions(bodies))).toEqual(expected);
  });
});

describe('bodyGap', () => {
  const dims = { length: 0.58, width: 0.31 };
  const at = (x: number, y: number, yaw = 0) => placeBody({ x, y, yaw }, dims);
  it('is bumper to bumper for cars in line, side to side abreast, corner to corner diagonally, 0 on contact', () => {
    expect(bodyGap(at(0, 0), at(10, 0))).toBeCloseTo(10 - 0.58, 12);
    expect(bodyGap(at(0, 0), at(0, 2))).toBeCloseTo(2 - 0.31, 12);
    expect(bodyGap(at(0, 0), at(3, 4))).toBeCloseTo(Math.hypot(3 - 0.58, 4 - 0.31), 12);
    // facing each other head-on: the same as in line
    expect(bodyGap(at(0, 0), at(10, 0, Math.PI))).toBeCloseTo(10 - 0.58, 12);
    expect(bodyGap(at(0, 0), at(0.3, 0))).toBe(0);
    // crossed like a plus sign: no corner inside the other, still overlapping
    expect(bodyGap(at(0, 0), at(0, 0, Math.PI / 2))).toBe(0);
  });

  it('agrees with the brute force over corners and edges, for bodies at any angle', () => {
    const segment = (px: number, py: number, ax: number, ay: number, bx: number, by: number) => {
      const t = Math.max(0, Math.min(1, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
      return Math.hypot(px - ax - t * (bx - ax), py - ay - t * (by - ay));
    };
    const brute = (a: Float64Array, b: Float64Array) => {
      let best = Infinity;
      for (const [p, q] of [
        [a, b],
        [b, a],
      ])
        for (let i = 0; i < 4; i++)
          for (let e = 0; e < 4; e++)
            best = Math.min(best, segment(p[2 * i], p[2 * i + 1], q[2 * e], q[2 * e + 1], q[(2 * e + 2) % 8], q[(2 * e + 3) % 8]));
      return best;
    };
    for (let k = 0; k < 200; k++) {
      const a = at(Math.sin(k) * 3, Math.cos(k * 1.3) * 3, k * 0.7);
      const b = at(Math.cos(k * 2.1) * 3, Math.sin(k * 0.4) * 3, k * 1.9);
      const gap = bodyGap(a, b);
      if (gap > 0) expect(gap).toBeCloseTo(brute(a.corners, b.corners), 9);
      else expect(footprintsOverlap(a.corners, b.corners)).toBe(true);
    }
  });
});
