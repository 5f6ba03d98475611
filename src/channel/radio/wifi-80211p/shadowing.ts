/**
 * Log-normal shadowing per pair of cars, correlated in space (Gudmundson's exponential model): when
 * the two cars have moved `m` metres between looks, the pair's shadowing S becomes
 * rho S + sqrt(1 - rho^2) sigma N(0, 1), with rho = exp(-m / decorrelation). A pair seen for the first
 * time draws S from N(0, sigma^2). Symmetric: a to b is b to a. Kept in flat arrays over the pairs
 * (a 1000-car run holds half a million pairs in 12 MB) so that a look allocates nothing.
 */
export class PairShadowing {
  /** Per pair (a < b): the value [dB], and each car's odometer when it was drawn (NaN: never drawn). */
  private readonly value: Float32Array;
  private readonly odometerA: Float64Array;
  private readonly odometerB: Float64Array;
  private spare = Number.NaN;

  constructor(
    private readonly cars: number,
    private readonly random: () => number,
  ) {
    const pairs = (cars * (cars - 1)) / 2;
    this.value = new Float32Array(pairs);
    this.odometerA = new Float64Array(pairs).fill(Number.NaN);
    this.odometerB = new Float64Array(pairs);
  }

  /** Shadowing [dB] between cars `a` and `b`, given how far each has driven so far (`odometer`, metres). */
  valueDb(a: number, b: number, odometer: Float64Array, sigmaDb: number, decorrelationM: number): number {
    const lo = a < b ? a : b;
    const hi = a < b ? b : a;
    const k = lo * this.cars - (lo * (lo + 1)) / 2 + (hi - lo - 1);
    const lastA = this.odometerA[k];
    if (Number.isNaN(lastA)) {
      this.value[k] = sigmaDb * this.normal();
    } else {
      const moved = odometer[lo] - lastA + (odometer[hi] - this.odometerB[k]);
      if (moved <= 0) return this.value[k];
      const rho = Math.exp(-moved / decorrelationM);
      this.value[k] = rho * this.value[k] + Math.sqrt(1 - rho * rho) * sigmaDb * this.normal();
    }
    this.odometerA[k] = odometer[lo];
    this.odometerB[k] = odometer[hi];
    return this.value[k];
  }

  /** A standard normal draw (Marsaglia's polar method, both values used). */
  private normal(): number {
    if (!Number.isNaN(this.spare)) {
      const s = this.spare;
      this.spare = Number.NaN;
      return s;
    }
    for (;;) {
      const u = 2 * this.random() - 1;
      const v = 2 * this.random() - 1;
      const s = u * u + v * v;
      if (s > 0 && s < 1) {
        const f = Math.sqrt((-2 * Math.log(s)) / s);
        this.spare = v * f;
        return u * f;
      }
    }
  }
}
