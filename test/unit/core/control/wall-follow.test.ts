import { describe, expect, it } from 'vitest';
import { createWallFollow, estimateWall, rangeAt } from '../../../../src/core/control/wall-follow.js';
import { fakeContext } from './fake-context.js';
import { corridor, type Segment, scanOf } from './synthetic-scan.js';

const OPTS = {
  side: 'left' as const,
  distance: 1.5,
  beamAngle: 0.8,
  lookahead: 1,
  kp: 1,
  ki: 0,
  kd: 0,
  speed: 3,
  cornerSpeed: 1.5,
  maxSteer: 0.4189,
};

/** A wall at perpendicular distance d on the given side, whose direction is turned by phi from the car's heading. */
function wall(side: 'left' | 'right', d: number, phi: number): Segment {
  const s = side === 'left' ? 1 : -1;
  // Foot of the perpendicular from the car to the wall, then ±40 m along the wall.
  const nx = -Math.sin(phi) * s;
  const ny = Math.cos(phi) * s;
  const ux = Math.cos(phi);
  const uy = Math.sin(phi);
  return [d * nx - 40 * ux, d * ny - 40 * uy, d * nx + 40 * ux, d * ny + 40 * uy];
}

describe('estimateWall', () => {
  it('reads distance and zero angle to a parallel wall', () => {
    const w = estimateWall(scanOf(corridor(1.2, 3)), OPTS)!;
    expect(w.alpha).toBeCloseTo(0, 2);
    expect(w.distance).toBeCloseTo(1.2, 2);
    expect(w.projected).toBeCloseTo(1.2, 2);
  });

  it.each([
    ['left', 0.2],
    ['left', -0.3],
    ['right', 0.25],
    ['right', -0.15],
  ] as const)('recovers the angle and distance of a %s wall turned by %s rad', (side, phi) => {
    const w = estimateWall(scanOf([wall(side, 1.4, phi)]), { ...OPTS, side })!;
    // Heading towards the wall (a left wall turned right, phi < 0) gives alpha < 0.
    const expectedAlpha = side === 'left' ? phi : -phi;
    expect(w.alpha).toBeCloseTo(expectedAlpha, 2);
    expect(w.distance).toBeCloseTo(1.4, 2);
    expect(w.projected).toBeCloseTo(1.4 + 1 * Math.sin(expectedAlpha), 2);
  });

  it('gives up when a beam sees nothing', () => {
    expect(estimateWall(scanOf([[-20, -1, 20, -1]]), OPTS)).toBeUndefined();
    expect(rangeAt(scanOf([]), 0)).toBeUndefined();
    expect(rangeAt(scanOf(corridor(1, 1)), 3)).toBeUndefined(); // outside the 4.7 rad field of view
  });
});

describe('createWallFollow', () => {
  const steerFor = (opts: typeof OPTS | (Omit<typeof OPTS, 'side'> & { side: 'left' | 'right' }), segments: Segment[]) => {
    const { ctx, drives } = fakeContext({ scan: scanOf(segments) });
    createWallFollow(opts).onTick!(ctx);
    return drives[0];
  };

  it('steers towards the left wall when too far from it and away when too close', () => {
    expect(steerFor(OPTS, corridor(1.8, 3)).steer).toBeCloseTo(0.3, 2); // kp·(1.8 − 1.5)
    expect(steerFor(OPTS, corridor(1.2, 3)).steer).toBeCloseTo(-0.3, 2);
    expect(steerFor(OPTS, corridor(1.5, 3)).steer).toBeCloseTo(0, 2);
  });

  it('mirrors for the right wall', () => {
    const right = { ...OPTS, side: 'right' as const };
    expect(steerFor(right, corridor(3, 1.2)).steer).toBeCloseTo(0.3, 2);
    expect(steerFor(right, corridor(3, 1.8)).steer).toBeCloseTo(-0.3, 2);
  });

  it('clamps to full lock and slows to the corner speed', () => {
    const d = steerFor({ ...OPTS, kp: 10 }, corridor(3, 3));
    expect(d.steer).toBe(OPTS.maxSteer);
    expect(d.speed).toBeCloseTo(OPTS.cornerSpeed, 12);
  });

  it('adds the derivative of the error over the clock, and the integral over time', () => {
    const { ctx, state, drives } = fakeContext({ scan: scanOf(corridor(1.6, 3)), t: 0 });
    const app = createWallFollow({ ...OPTS, kp: 0, kd: 0.2, ki: 1 });
    app.onTick!(ctx); // first tick: no history, no derivative, no integral
    expect(drives[0].steer).toBeCloseTo(0, 6);
    state.t = 0.1;
    state.scan = scanOf(corridor(1.7, 3));
    app.onTick!(ctx);
    // derivative (0.2 − 0.1)/0.1 = 1 → 0.2; integral 0.2·0.1 = 0.02 → 0.02
    expect(drives[1].steer).toBeCloseTo(0.22, 2);
  });
});
