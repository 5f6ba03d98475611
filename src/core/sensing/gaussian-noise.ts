/**
 * Seeded standard-normal samples, cheap enough for 1080 per scan: an sfc32 uniform generator
 * (seeded through splitmix32) picks one of 2^14 equally likely N(0, 1) quantiles. Tails are cut
 * at about ±4σ, which is irrelevant for range noise. Same seed, same sequence, on every platform.
 */
export class GaussianNoise {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  constructor(seed: number) {
    this.reseed(seed);
  }

  reseed(seed: number): void {
    let s = seed >>> 0;
    const splitmix = () => {
      s = (s + 0x9e3779b9) | 0;
      let t = s ^ (s >>> 16);
      t = Math.imul(t, 0x21f0aaad);
      t ^= t >>> 15;
      t = Math.imul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
    this.a = splitmix();
    this.b = splitmix();
    this.c = splitmix();
    this.d = splitmix();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  uniform(): number {
    return this.nextUint32() / 4294967296;
  }

  /**
   * values[i] += std * normal(), clamped to [0, max], for i < n: the samples normal() would give,
   * with the generator's state in locals for the loop.
   */
  addClamped(values: Float32Array, n: number, std: number, max: number): void {
    let { a, b, c, d } = this;
    const shift = 32 - QUANTILE_BITS;
    const quantiles = normalQuantiles();
    for (let i = 0; i < n; i++) {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      const r = values[i] + std * quantiles[t >>> shift];
      // As r < 0 ? 0 : r > max ? max : r (but for r = −0, which a range plus nonzero noise never
      // is), about a microsecond a scan faster.
      values[i] = Math.max(0, Math.min(max, r));
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }

  /** A sample of N(0, 1). */
  normal(): number {
    return normalQuantiles()[this.nextUint32() >>> (32 - QUANTILE_BITS)];
  }
}

const QUANTILE_BITS = 14;

let quantileTable: Float64Array | undefined;

/** Quantiles of N(0, 1) at the midpoints of 2^14 equal-probability bins; made on first use, not when a run without lidar noise loads this. */
function normalQuantiles(): Float64Array {
  if (quantileTable) return quantileTable;
  const n = 1 << QUANTILE_BITS;
  const table = new Float64Array(n);
  for (let i = 0; i < n; i++) table[i] = inverseNormalCdf((i + 0.5) / n);
  quantileTable = table;
  return table;
}

const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];

/** Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9). */
export function inverseNormalCdf(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`p must be in (0, 1), got ${p}`);
  const pLow = 0.02425;
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
  }
  if (p > 1 - pLow) return -inverseNormalCdf(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) /
    (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1)
  );
}
