import { describe, expect, it } from 'vitest';
import { chooseGap, createGapFollow, speedForSteer } from '../../../../src/core/control/gap-follow.js';
import { fakeContext } from './fake-context.js';
import { box, corridor, scanOf } from './synthetic-scan.js';

const OPTS = {
  bubbleRadius: 0.6,
  fov: Math.PI,
  clipRange: 4,
  freeRange: 1.2,
  smoothing: 5,
  gain: 1,
  speed: 3,
  cornerSpeed: 1.5,
  maxSteer: 0.4189,
};

describe('chooseGap', () => {
  it('aims straight ahead in the middle of a straight corridor', () => {
    const gap = chooseGap(scanOf(corridor(1.5, 1.5)), OPTS)!;
    expect(Math.abs(gap.bearing)).toBeLessThan(0.02);
  });

  it('aims towards the open side when the car sits off-centre', () => {
    // Closer to the right wall: the bubble blanks the right, the best point lies left of ahead.
    const gap = chooseGap(scanOf(corridor(2.2, 0.8)), OPTS)!;
    expect(gap.bearing).toBeGreaterThan(0.01);
  });

  it('passes an obstacle ahead-left on its right, never through it', () => {
    const scan = scanOf([...corridor(2, 2), ...box(2.5, 0.4, 0.3)]);
    const gap = chooseGap(scan, OPTS)!;
    expect(gap.bearing).toBeLessThan(0);
    // The box subtends bearings atan2(0.1..0.7, 2.2..2.8); the best point is clear of it by the bubble.
    const boxRightEdge = Math.atan2(0.1, 2.2);
    expect(gap.bearing).toBeLessThan(boxRightEdge - Math.asin(0.6 / 2.2) + 0.05);
    // Every beam of the chosen gap is longer than freeRange in the raw scan, up to smoothing at its edges.
    const inGap = Array.from(scan.ranges.slice(gap.gapStart + 3, gap.gapEnd - 2));
    expect(Math.min(...inGap)).toBeGreaterThan(OPTS.freeRange);
  });

  it('turns left at a left bend: wall ahead at 3 m, opening on the left', () => {
    const scan = scanOf([
      [-20, -1.5, 3, -1.5], // right wall up to the outer corner
      [3, -1.5, 3, 20], // wall across, ahead
      [-20, 1.5, 0, 1.5], // left wall ends at x = 0, where the side road opens
      [0, 1.5, 0, 20],
    ]);
    const gap = chooseGap(scan, OPTS)!;
    expect(gap.bearing).toBeGreaterThan(0.3);
  });

  it('finds no gap inside a closed box, and the controller then stops', () => {
    const scan = scanOf(box(0, 0, 0.8));
    expect(chooseGap(scan, OPTS)).toBeUndefined();
    const { ctx, drives } = fakeContext({ scan });
    createGapFollow(OPTS).onTick!(ctx);
    expect(drives).toEqual([{ speed: 0, steer: 0 }]);
  });

  it('ignores beams outside its field of view', () => {
    // Walled in at 0.8 m ahead and on both sides; open only behind, at bearings beyond ±1.93 rad.
    const scan = scanOf([
      [0.8, -0.8, 0.8, 0.8],
      [-0.3, 0.8, 0.8, 0.8],
      [-0.3, -0.8, 0.8, -0.8],
    ]);
    expect(chooseGap(scan, { ...OPTS, fov: Math.PI / 2 })).toBeUndefined();
    const wide = chooseGap(scan, { ...OPTS, fov: 4.7 })!;
    expect(Math.abs(wide.bearing)).toBeGreaterThan(1.93);
  });
});

describe('createGapFollow', () => {
  it('does nothing until a scan arrives', () => {
    const { ctx, drives } = fakeContext();
    createGapFollow(OPTS).onTick!(ctx);
    expect(drives).toEqual([]);
  });

  it('drives fast straight ahead and slows when it steers, clamped to full lock', () => {
    const straight = fakeContext({ scan: scanOf(corridor(1.5, 1.5)) });
    const app = createGapFollow(OPTS);
    app.onTick!(straight.ctx);
    expect(straight.drives[0].speed).toBeGreaterThan(2.9);

    const bend = fakeContext({
      scan: scanOf([
        [-20, -1.5, 1.2, -1.5],
        [1.2, -1.5, 1.2, 20],
        [-20, 1.5, -1, 1.5],
      ]),
    });
    createGapFollow({ ...OPTS, gain: 5 }).onTick!(bend.ctx);
    expect(bend.drives[0].steer).toBeCloseTo(OPTS.maxSteer, 12);
    expect(bend.drives[0].speed).toBeCloseTo(OPTS.cornerSpeed, 12);
  });

  it('interpolates speed linearly in |steer|', () => {
    expect(speedForSteer(0, 0.4, { speed: 3, cornerSpeed: 1 })).toBe(3);
    expect(speedForSteer(-0.2, 0.4, { speed: 3, cornerSpeed: 1 })).toBe(2);
    expect(speedForSteer(0.9, 0.4, { speed: 3, cornerSpeed: 1 })).toBe(1);
  });
});
