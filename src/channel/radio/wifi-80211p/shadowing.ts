/**
 * Log-normal shadowing per pair of cars, correlated in space (Gudmundson's exponential model): when
 * the two cars have moved `m` metres between looks, the pair's shadowing S becomes
 * rho S + sqrt(1 - rho^2) sigma N(0, 1), with rho = exp(-m / decorrelation). A pair seen for the first
 * time draws S from N(0, sigma^2). Symmetric: a to b is b to a. Kept in one flat array over the pairs
 * (a 1000-car run holds half a million pairs in 12 MB) so that a look allocates nothing, and a pair's
 * three numbers share a cache line: a sender's looks at the cars before it stride across the array.
 */
const PAIR_STRIDE = 3;
/** Even, since the draws come in pairs. */
const NORMALS_AHEAD = 256;

export class PairShadowing {
  /**
   * Per pair (a < b), at PAIR_STRIDE * k: the value [dB] (rounded to single precision, as it was
   * always kept), then each car's odometer when it was drawn (NaN: never drawn).
   */
  private readonly pairs: Float64Array;
  /** Standard normal draws made ahead, used in order from `nextNormal` (a call per look would box each one). */
  private readonly normals = new Float64Array(NORMALS_AHEAD);
  private nextNormal = NORMALS_AHEAD;

  constructor(
    private readonly cars: number,
    private readonly random: () => number,
  ) {
    this.pairs = new Float64Array(((cars * (cars - 1)) / 2) * PAIR_STRIDE);
    for (let i = 1; i < this.pairs.length; i += PAIR_STRIDE) this.pairs[i] = Number.NaN;
  }

  /** Shadowing [dB] between cars `a` and `b`, given how far each has driven so far (`odometer`, metres). */
  valueDb(a: number, b: number, odometer: Float64Array, sigmaDb: number, decorrelationM: number): number {
    const lo = a < b ? a : b;
    const hi = a < b ? b : a;
    const k = (lo * this.cars - (lo * (lo + 1)) / 2 + (hi - lo - 1)) * PAIR_STRIDE;
    const pairs = this.pairs;
    const lastA = pairs[k + 1];
    let value: number;
    if (Number.isNaN(lastA)) {
      value = Math.fround(sigmaDb * this.normalDraw());
    } else {
      const moved = odometer[lo] - lastA + (odometer[hi] - pairs[k + 2]);
      if (moved <= 0) return pairs[k];
      const rho = Math.exp(-moved / decorrelationM);
      value = Math.fround(rho * pairs[k] + Math.sqrt(1 - rho * rho) * sigmaDb * this.normalDraw());
    }
    pairs[k] = value;
    pairs[k + 1] = odometer[lo];
    pairs[k + 2] = odometer[hi];
    return value;
  }

  private normalDraw(): number {
    if (this.nextNormal === NORMALS_AHEAD) this.drawNormals();
    return this.normals[this.nextNormal++];
  }

  /** The next NORMALS_AHEAD standard normal draws (Marsaglia's polar method, both values of each pair used in turn). */
  private drawNormals(): void {
    for (let i = 0; i < NORMALS_AHEAD; ) {
      const u = 2 * this.random() - 1;
      const v = 2 * this.random() - 1;
      const s = u * u + v * v;
      if (s > 0 && s < 1) {
        const f = Math.sqrt((-2 * Math.log(s)) / s);
        this.normals[i++] = u * f;
        this.normals[i++] = v * f;
      }
    }
    this.nextNormal = 0;
  }
}
