import type { OccupancyGrid } from '../map/occupancy-grid.js';

/**
 * Exact Euclidean distance transform of a grid (Felzenszwalb & Huttenlocher, two 1-D passes):
 * for every cell, the distance in metres from its centre to the centre of the nearest occupied
 * cell, 0 in occupied cells. The ring of cells just outside the grid counts as occupied, so rays
 * never march off the map. Row-major, row 0 at the bottom, like grid.occupied.
 */
export function precomputeDistanceField(grid: Pick<OccupancyGrid, 'width' | 'height' | 'occupied' | 'resolution'>): Float32Array {
  const { width: w, height: h, occupied, resolution } = grid;
  const pw = w + 2;
  const ph = h + 2;
  const BIG = 1e20;
  const sq = new Float64Array(pw * ph); // squared distances in cells², padded by one ring of obstacles
  for (let row = 0; row < ph; row++) {
    for (let col = 0; col < pw; col++) {
      const inside = row > 0 && row <= h && col > 0 && col <= w;
      sq[row * pw + col] = inside && occupied[(row - 1) * w + (col - 1)] === 0 ? BIG : 0;
    }
  }

  const n = Math.max(pw, ph);
  const f = new Float64Array(n);
  const d = new Float64Array(n);
  const v = new Int32Array(n);
  const z = new Float64Array(n + 1);

  for (let col = 0; col < pw; col++) {
    for (let row = 0; row < ph; row++) f[row] = sq[row * pw + col];
    lowerEnvelope(f, ph, d, v, z);
    for (let row = 0; row < ph; row++) sq[row * pw + col] = d[row];
  }
  for (let row = 0; row < ph; row++) {
    const base = row * pw;
    for (let col = 0; col < pw; col++) f[col] = sq[base + col];
    lowerEnvelope(f, pw, d, v, z);
    for (let col = 0; col < pw; col++) sq[base + col] = d[col];
  }

  const out = new Float32Array(w * h);
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) out[row * w + col] = Math.sqrt(sq[(row + 1) * pw + col + 1]) * resolution;
  }
  return out;
}

/** 1-D squared distance transform of sampled function f[0..n) into d (lower envelope of parabolas). */
function lowerEnvelope(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = 1; q < n; q++) {
    let s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    while (s <= z[k]) {
      k--;
      s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    const dq = q - v[k];
    d[q] = dq * dq + f[v[k]];
  }
}
