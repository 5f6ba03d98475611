import { describe, expect, it } from 'vitest';
import { FreeDiscChain } from '../../../../src/core/sensing/free-disc-chain.js';

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

describe('FreeDiscChain', () => {
  it('never reaches past the first obstacle along a beam, however the beams and discs fall', () => {
    const random = seeded(5);
    for (let scene = 0; scene < 25; scene++) {
      // Obstacles: discs of radius 0.5 [cells] scattered around the lidar at the origin.
      const obstacles = Array.from({ length: 30 + Math.floor(random() * 200) }, () => {
        const a = random() * 2 * Math.PI;
        const d = 2 + random() * 300;
        return [d * Math.cos(a), d * Math.sin(a)];
      });
      const clearanceAt = (x: number, y: number) => Math.min(...obstacles.map(([ox, oy]) => Math.hypot(ox - x, oy - y) - 0.5));
      const beams = 100 + Math.floor(random() * 1000);
      const increment = (random() * 2 * Math.PI) / beams;
      const chain = new FreeDiscChain(2 * Math.sin(increment / 2) * (1 + 1e-9));
      let reached = 0;
      for (let i = 0; i < beams; i++) {
        const dx = Math.cos(i * increment);
        const dy = Math.sin(i * increment);
        // The exact distance to the first obstacle along the beam.
        let hit = Infinity;
        for (const [ox, oy] of obstacles) {
          const along = ox * dx + oy * dy;
          const across = ox * dy - oy * dx;
          if (along > 0 && Math.abs(across) < 0.5) hit = Math.min(hit, along - Math.sqrt(0.25 - across * across));
        }
        const reach = chain.reach(i);
        expect(reach).toBeLessThanOrEqual(hit);
        if (reach > 1) reached++;
        // March on from the reach as the lidar does, linking the free discs it finds.
        let t = Math.max(0, reach);
        for (let step = 0; step < 50 && t < Math.min(hit, 400) - 1; step++) {
          const free = clearanceAt(t * dx, t * dy);
          if (free < 1) break;
          chain.add(i, t, free);
          t += free;
        }
      }
      expect(reached).toBeGreaterThan(beams / 4);
    }
  });
});
