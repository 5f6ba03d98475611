/** Seeded PRNG (mulberry32): the same seed gives the same sequence on every machine. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Derives independent seeds for sub-streams (channel, lidar, ...) from the scenario seed. */
export function deriveSeed(seed: number, stream: string): number {
  let h = seed ^ 0x811c9dc5;
  for (let i = 0; i < stream.length; i++) h = Math.imul(h ^ stream.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
