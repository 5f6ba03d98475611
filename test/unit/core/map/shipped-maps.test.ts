import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMap } from '../../../../src/core/map/load-map.js';
import { footprintHitsWall } from '../../../../src/core/map/wall-collision.js';

function waypoints(file: string): { x: number; y: number; speed: number }[] {
  const [header, ...lines] = readFileSync(path.resolve('maps', file), 'utf8').trim().split('\n');
  expect(header).toBe('x,y,speed');
  return lines.map((l) => {
    const [x, y, speed] = l.split(',').map(Number);
    return { x, y, speed };
  });
}

function car(x: number, y: number, yaw: number): [number, number][] {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return [
    [-0.29, 0.155],
    [-0.29, -0.155],
    [0.29, -0.155],
    [0.29, 0.155],
  ].map(([bx, by]) => [x + c * bx - s * by, y + s * bx + c * by]);
}

const ROUTES: Array<[string, string, number]> = [
  ['corridor', 'corridor.lane0-east.csv', 10],
  ['corridor', 'corridor.lane0-west.csv', 10],
  ['loop', 'loop.centerline.csv', 4],
  ['intersection', 'intersection.south-north.csv', 5],
  ['intersection', 'intersection.west-east.csv', 5],
];

describe('shipped maps and waypoints', () => {
  it.each(ROUTES)('%s: a car on every point of %s is clear of the walls', async (map, file, speed) => {
    const grid = await loadMap(path.resolve('maps', `${map}.yaml`));
    const pts = waypoints(file);
    expect(pts.length).toBeGreaterThan(100);
    pts.forEach((p, i) => {
      const q = pts[Math.min(i + 1, pts.length - 1)];
      const prev = pts[Math.max(i - 1, 0)];
      const yaw = Math.atan2(q.y - prev.y, q.x - prev.x);
      expect(p.speed).toBe(speed);
      expect(footprintHitsWall(car(p.x, p.y, yaw), grid)).toBe(false);
      // and with room to spare sideways: 0.5 m either side is still free
      expect(grid.isOccupiedWorld(p.x - 0.5 * Math.sin(yaw), p.y + 0.5 * Math.cos(yaw))).toBe(false);
      expect(grid.isOccupiedWorld(p.x + 0.5 * Math.sin(yaw), p.y - 0.5 * Math.cos(yaw))).toBe(false);
    });
  });

  it('the loop centreline is closed, counter-clockwise, 60-100 m long, sampled every 0.2-0.5 m', () => {
    const pts = waypoints('loop.centerline.csv');
    let length = 0;
    let area2 = 0;
    for (let i = 0; i < pts.length; i++) {
      const a = pts[i];
      const b = pts[(i + 1) % pts.length];
      const step = Math.hypot(b.x - a.x, b.y - a.y);
      expect(step).toBeGreaterThan(0.2);
      expect(step).toBeLessThan(0.5);
      length += step;
      area2 += a.x * b.y - b.x * a.y;
    }
    expect(length).toBeGreaterThan(60);
    expect(length).toBeLessThan(100);
    expect(area2).toBeGreaterThan(0); // positive signed area: counter-clockwise
  });

  it('the head-on routes share lane 0 in opposite directions', () => {
    const east = waypoints('corridor.lane0-east.csv');
    const west = waypoints('corridor.lane0-west.csv');
    expect([east[0].x, east.at(-1)!.x, west[0].x, west.at(-1)!.x]).toEqual([-28, 28, 28, -28]);
    expect(new Set([...east, ...west].map((p) => p.y))).toEqual(new Set([-1]));
  });
});
