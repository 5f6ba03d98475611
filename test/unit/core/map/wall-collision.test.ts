import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMap } from '../../../../src/core/map/load-map.js';
import { footprintHitsWall } from '../../../../src/core/map/wall-collision.js';
import { gridFrom } from './ascii-grid.js';

type Corner = [number, number];

function rect(cx: number, cy: number, yaw: number, length: number, width: number): Corner[] {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return [
    [-length / 2, width / 2],
    [-length / 2, -width / 2],
    [length / 2, -width / 2],
    [length / 2, width / 2],
  ].map(([bx, by]) => [cx + c * bx - s * by, cy + s * bx + c * by] as Corner);
}

// 20 x 20 cells of 1 m, one occupied cell covering x in [5, 6], y in [5, 6]
const oneCell = gridFrom(20, 20, 1, { x: 0, y: 0, yaw: 0 }, (c, r) => c === 5 && r === 5);

describe('footprintHitsWall', () => {
  it('detects overlap with an occupied cell and ignores free space', () => {
    expect(footprintHitsWall(rect(4.8, 5.5, 0, 1, 0.5), oneCell)).toBe(true);
    expect(footprintHitsWall(rect(3.0, 5.5, 0, 1, 0.5), oneCell)).toBe(false);
  });

  it('does not count touching an edge as a hit', () => {
    expect(footprintHitsWall(rect(4.5, 5.5, 0, 1, 0.5), oneCell)).toBe(false); // front edge at x = 5
  });

  it('uses the rectangle, not its bounding box', () => {
    // a 45-degree square whose bounding box covers the cell's lower-left corner but whose edge passes beside it
    const corners = rect(4.4, 4.4, Math.PI / 4, 1, 1); // reaches x + y <= 8.8 + 0.707... = 9.507 < 10
    expect(footprintHitsWall(corners, oneCell)).toBe(false);
    expect(footprintHitsWall(rect(4.7, 4.7, Math.PI / 4, 1, 1), oneCell)).toBe(true); // x + y reaches 10.107
  });

  it('treats leaving the map as hitting a wall', () => {
    expect(footprintHitsWall(rect(0.2, 10, 0, 1, 0.5), oneCell)).toBe(true);
    expect(footprintHitsWall(rect(19.6, 10, 0, 1, 0.5), oneCell)).toBe(true);
  });

  it('accepts packed corners as physics produces them', () => {
    const packed = new Float64Array(rect(4.8, 5.5, 0, 1, 0.5).flat());
    expect(footprintHitsWall(packed, oneCell)).toBe(true);
  });

  it('agrees with an independent polygon-intersection reference on random poses', () => {
    const grid = scatteredWalls();
    const rand = lcg(1);
    let hits = 0;
    for (let n = 0; n < 400; n++) {
      // centred within 0.5 m of the map centre (-0.341, 0.251), so the rectangle stays on the map
      const corners = rect(-0.341 + rand() - 0.5, 0.251 + rand() - 0.5, rand() * 6.3, 0.05 + rand() * 0.2, 0.02 + rand() * 0.1);
      const expected = referenceHit(corners, grid);
      if (expected) hits++;
      expect(footprintHitsWall(corners, grid)).toBe(expected);
    }
    expect(hits).toBeGreaterThan(50);
    expect(hits).toBeLessThan(350);
  });

  it('agrees with the reference among a few isolated walls, where most footprints skip free blocks of cells', () => {
    // 0.05 m cells, a wall cell here and there: blocks of cells with none and blocks with one side by side
    const grid = gridFrom(40, 40, 0.05, { x: -1, y: -1, yaw: 0.3 }, (c, r) => (c * 7 + r * 13) % 97 === 0);
    const rand = lcg(3);
    let hits = 0;
    for (let n = 0; n < 2000; n++) {
      const corners = rect(-0.341 + rand() - 0.5, 0.251 + rand() - 0.5, rand() * 6.3, 0.02 + rand() * 0.2, 0.02 + rand() * 0.1);
      const expected = referenceHit(corners, grid);
      if (expected) hits++;
      expect(footprintHitsWall(corners, grid)).toBe(expected);
    }
    expect(hits).toBeGreaterThan(100);
    expect(hits).toBeLessThan(1900);
  });

  it('agrees with the reference on poses across the map edge, where everything blocks', () => {
    const grid = scatteredWalls();
    const rand = lcg(7);
    let hits = 0;
    for (let n = 0; n < 400; n++) {
      // along the edges of the 2 m square map, up to 0.2 m beyond them, in its own frame
      const along = rand() * 2;
      const across = rand() * 0.4 - 0.2;
      const [mx, my] = [
        [along, across],
        [along, 2 + across],
        [across, along],
        [2 + across, along],
      ][n % 4];
      const corners = rect(
        -1 + mx * Math.cos(0.3) - my * Math.sin(0.3),
        -1 + mx * Math.sin(0.3) + my * Math.cos(0.3),
        rand() * 6.3,
        0.01 + rand() * 0.1,
        0.01 + rand() * 0.05,
      );
      const expected = referenceHit(corners, grid, 10);
      if (expected) hits++;
      expect(footprintHitsWall(corners, grid)).toBe(expected);
    }
    expect(hits).toBeGreaterThan(100);
    expect(hits).toBeLessThan(380);
  });

  it('answers at once for a car far off the map (cell arithmetic there looped for ever)', () => {
    expect(footprintHitsWall(rect(1e20, -1, 0.5, 0.58, 0.31), oneCell)).toBe(true);
    expect(footprintHitsWall(rect(-3e17, 4e17, 3.1, 0.58, 0.31), oneCell)).toBe(true);
  });

  it('keeps a car in its lane on the shipped corridor and flags one scraping the wall', async () => {
    const grid = await loadMap(path.resolve('maps/corridor.yaml'));
    expect(footprintHitsWall(rect(0, -1, 0, 0.58, 0.31), grid)).toBe(false);
    expect(footprintHitsWall(rect(0, 1.9, 0, 0.58, 0.31), grid)).toBe(true);
    expect(footprintHitsWall(rect(29.8, 0, 0, 0.58, 0.31), grid)).toBe(true);
  });
});

/**
 * Reference: a convex quad and a cell square overlap iff a corner of one is strictly inside the
 * other or edges cross. Cells up to `margin` outside the grid are included (they all block).
 */
function referenceHit(corners: Corner[], grid: ReturnType<typeof gridFrom>, margin = 0): boolean {
  for (let row = -margin; row < grid.height + margin; row++) {
    for (let col = -margin; col < grid.width + margin; col++) {
      if (!grid.isOccupiedCell(col, row)) continue;
      const square = [
        [col, row],
        [col + 1, row],
        [col + 1, row + 1],
        [col, row + 1],
      ].map(([mx, my]) => {
        const x = grid.origin.x + mx * grid.resolution * grid.cosYaw - my * grid.resolution * grid.sinYaw;
        const y = grid.origin.y + mx * grid.resolution * grid.sinYaw + my * grid.resolution * grid.cosYaw;
        return [x, y] as Corner;
      });
      if (convexOverlap(corners, square)) return true;
    }
  }
  return false;
}

function convexOverlap(a: Corner[], b: Corner[]): boolean {
  if (a.some((p) => inside(p, b)) || b.some((p) => inside(p, a))) return true;
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) if (segmentsCross(a[i], a[(i + 1) % 4], b[j], b[(j + 1) % 4])) return true;
  return false;
}

function cross(o: Corner, p: Corner, q: Corner): number {
  return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0]);
}

function inside(p: Corner, poly: Corner[]): boolean {
  const signs = poly.map((v, i) => Math.sign(cross(v, poly[(i + 1) % 4], p)));
  return signs.every((s) => s > 0) || signs.every((s) => s < 0);
}

function segmentsCross(p1: Corner, p2: Corner, q1: Corner, q2: Corner): boolean {
  const d1 = cross(q1, q2, p1);
  const d2 = cross(q1, q2, p2);
  const d3 = cross(p1, p2, q1);
  const d4 = cross(p1, p2, q2);
  return d1 * d2 < 0 && d3 * d4 < 0;
}

/** A 2 m square map, rotated, with walls scattered over it. */
function scatteredWalls() {
  return gridFrom(40, 40, 0.05, { x: -1, y: -1, yaw: 0.3 }, (c, r) => (c * 7 + r * 13) % 11 === 0 && c % 3 !== 0);
}

/** A seeded generator of numbers in [0, 1), so the random poses are the same every run. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}
