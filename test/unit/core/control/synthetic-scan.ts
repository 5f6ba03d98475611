import type { LaserScan } from '../../../../src/core/control/vehicle-context.js';

/** A wall segment in the car frame (x forward, y left). */
export type Segment = [x0: number, y0: number, x1: number, y1: number];

/** An exact noise-free scan (f1tenth_gym geometry: 1080 beams over 4.7 rad, 30 m) of segments around the car at the origin. */
export function scanOf(
  segments: readonly Segment[],
  opts: { beams?: number; fov?: number; rangeMax?: number; t?: number } = {},
): LaserScan {
  const beams = opts.beams ?? 1080;
  const fov = opts.fov ?? 4.7;
  const rangeMax = opts.rangeMax ?? 30;
  const angleMin = -fov / 2;
  const angleIncrement = fov / (beams - 1);
  const ranges = new Float32Array(beams);
  for (let i = 0; i < beams; i++) {
    const a = angleMin + i * angleIncrement;
    const rx = Math.cos(a);
    const ry = Math.sin(a);
    let best = rangeMax;
    for (const [x0, y0, x1, y1] of segments) {
      const ex = x1 - x0;
      const ey = y1 - y0;
      const denom = rx * ey - ry * ex;
      if (Math.abs(denom) < 1e-12) continue;
      const t = (x0 * ey - y0 * ex) / denom;
      const s = (x0 * ry - y0 * rx) / denom;
      if (t > 0 && s >= 0 && s <= 1 && t < best) best = t;
    }
    ranges[i] = best;
  }
  return { t: opts.t ?? 0, angleMin, angleIncrement, rangeMax, ranges };
}

/** Two parallel walls along x at y = left and y = -right, from x = -20 to 20. */
export const corridor = (left: number, right: number): Segment[] => [
  [-20, left, 20, left],
  [-20, -right, 20, -right],
];

/** A square box with its centre at (cx, cy) and half-side h. */
export const box = (cx: number, cy: number, h: number): Segment[] => [
  [cx - h, cy - h, cx + h, cy - h],
  [cx + h, cy - h, cx + h, cy + h],
  [cx + h, cy + h, cx - h, cy + h],
  [cx - h, cy + h, cx - h, cy - h],
];
