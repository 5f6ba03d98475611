import { bodyGap, type PlacedBody, placeBody } from '../core/physics/footprint.js';
import { centreDistance, closingSpeed, footprintOverlapTtc, type MovingPose } from '../core/physics/ttc.js';
import type { VehicleParams } from '../core/physics/types.js';
import { BoxSweep } from '../util/box-sweep.js';
import type { CsvLog } from './csv-log.js';
import { BOUND_MARGIN, PAIR_ROW_DISTANCE_M, PAIR_ROW_TTC_S, pairRowKept, ttcLowerBound } from './pair-rows.js';

export interface PairFigures {
  a: string;
  b: string;
  min_distance_m: number;
  min_distance_t_s: number;
  /** Smallest bumper-to-bumper gap (0 on contact); null when the cars' bodies are not known. */
  min_gap_m: number | null;
  min_ttc_s: number | null;
  min_ttc_t_s: number | null;
  collision: boolean;
  first_collision_t_s: number | null;
}

/** A pair's figures before its first step: nothing measured yet. */
export const unmeasuredPair = (a: string, b: string): PairFigures => ({
  a,
  b,
  min_distance_m: Infinity,
  min_distance_t_s: 0,
  min_gap_m: null,
  min_ttc_s: null,
  min_ttc_t_s: null,
  collision: false,
  first_collision_t_s: null,
});

/**
 * Every pair's centre distance, bumper gap and TTC (Eq. 3.7, only while closing) at each step: the
 * running minima and pairs.csv's rows (pair-rows.ts). `near` (fleets): only the pairs close enough
 * for a row are looked at, found by a sweep over the cars' positions; a pair further apart can have
 * neither a row nor a TTC under PAIR_ROW_TTC_S, so pairs.csv is the same, and the minima are those
 * of the pairs that came that close.
 */
export class PairTracker {
  /** Every pair, in pair order (car i with each later car j); without `near` only. */
  private readonly every?: PairFigures[];
  /** With `near`: the pairs that have come within reach of a row, by pair index. */
  private readonly met?: Map<number, PairFigures>;
  /** 1 for the pairs that have had a row in pairs.csv. */
  private readonly rowed: Uint8Array;
  private readonly placed: PlacedBody[] = [];
  private readonly carIndex: ReadonlyMap<string, number>;
  /** A pair's gap at the step gapStep says; gaps are taken only where they can matter. */
  private readonly stepGaps: Float64Array;
  private readonly gapStep: Int32Array;
  private steps = 0;
  private smallestTtc: number | null = null;
  private readonly sweep?: { boxes: BoxSweep; minX: Float64Array; maxX: Float64Array; minY: Float64Array; maxY: Float64Array };
  private candidates = new Int32Array(1024);
  /** Each car's velocity this step [m/s]. */
  private readonly vx: Float64Array;
  private readonly vy: Float64Array;

  constructor(
    private readonly names: readonly string[],
    private readonly rows: CsvLog,
    private readonly bodies?: readonly Pick<VehicleParams, 'length' | 'width'>[],
    near = false,
  ) {
    const n = names.length;
    this.carIndex = new Map(names.map((name, i) => [name, i]));
    this.vx = new Float64Array(n);
    this.vy = new Float64Array(n);
    this.rowed = new Uint8Array((n * (n - 1)) / 2);
    this.stepGaps = new Float64Array(this.rowed.length);
    this.gapStep = new Int32Array(this.rowed.length).fill(-1);
    if (near) {
      this.met = new Map();
      const box = () => new Float64Array(n);
      this.sweep = { boxes: new BoxSweep(n), minX: box(), maxX: box(), minY: box(), maxY: box() };
      return;
    }
    this.every = [];
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) this.every.push(unmeasuredPair(names[i], names[j]));
  }

  /** Every pair measured: all of them, or with `near` those that came within reach, in pair order. */
  get allPairs(): PairFigures[] {
    if (this.every) return this.every;
    return [...this.met!.keys()].sort((a, b) => a - b).map((k) => this.met!.get(k)!);
  }

  /** The pairs that have had a row in pairs.csv or collided, in pair order: those summary.json lists. */
  get pairs(): PairFigures[] {
    if (this.every) return this.every.filter((p, k) => this.rowed[k] === 1 || p.collision);
    return this.allPairs.filter((p) => this.rowed[this.pairOf(p.a, p.b)] === 1 || p.collision);
  }

  /** The smallest TTC any pair has reached so far, or null. */
  minTtc(): number | null {
    return this.smallestTtc;
  }

  /** Measures every pair (or every pair near enough) at time t; returns the step's number. */
  record(t: number, cars: readonly MovingPose[]): number {
    const bodies = this.bodies;
    if (bodies) cars.forEach((c, i) => (this.placed[i] = placeBody(c, bodies[i], this.placed[i])));
    for (let i = 0; i < cars.length; i++) {
      this.vx[i] = cars[i].v * Math.cos(cars[i].yaw);
      this.vy[i] = cars[i].v * Math.sin(cars[i].yaw);
    }
    const step = this.steps++;
    if (!this.every) {
      this.recordNear(t, cars, step);
      return step;
    }
    let k = 0;
    for (let i = 0; i < cars.length; i++)
      for (let j = i + 1; j < cars.length; j++, k++) this.measure(this.every[k], k, i, j, cars, t, step);
    return step;
  }

  private recordNear(t: number, cars: readonly MovingPose[], step: number): void {
    const n = cars.length;
    const { boxes, minX, maxX, minY, maxY } = this.sweep!;
    let widest = 0;
    const v = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
    for (let i = 0; i < n; i++) {
      if (this.bodies && this.placed[i].radius > widest) widest = this.placed[i].radius;
      v.minX = Math.min(v.minX, this.vx[i]);
      v.maxX = Math.max(v.maxX, this.vx[i]);
      v.minY = Math.min(v.minY, this.vy[i]);
      v.maxY = Math.max(v.maxY, this.vy[i]);
    }
    // no two cars close faster than this; beyond `reach` a pair is too far for a row and its TTC (at least the bound) exceeds PAIR_ROW_TTC_S
    const closing = n ? Math.hypot(v.maxX - v.minX, v.maxY - v.minY) : 0;
    const reach = Math.max(PAIR_ROW_DISTANCE_M, PAIR_ROW_TTC_S * closing * (1 + 1e-6)) + 2 * widest + 1e-6;
    for (let i = 0; i < n; i++) {
      minX[i] = cars[i].x - reach / 2;
      maxX[i] = cars[i].x + reach / 2;
      minY[i] = cars[i].y - reach / 2;
      maxY[i] = cars[i].y + reach / 2;
    }
    let found = 0;
    boxes.forEachOverlap(minX, maxX, minY, maxY, (i, j) => {
      if (found === this.candidates.length) {
        const grown = new Int32Array(found * 2);
        grown.set(this.candidates);
        this.candidates = grown;
      }
      this.candidates[found++] = i * n + j;
    });
    // in pair order, as every pair is measured without `near`: pairs.csv's rows come out the same
    const keys = this.candidates.subarray(0, found).sort();
    for (const key of keys) {
      const i = Math.floor(key / n);
      const j = key - i * n;
      const k = this.indexOf(i, j);
      let pair = this.met!.get(k);
      if (!pair) this.met!.set(k, (pair = unmeasuredPair(this.names[i], this.names[j])));
      this.measure(pair, k, i, j, cars, t, step);
    }
  }

  private measure(pair: PairFigures, k: number, i: number, j: number, cars: readonly MovingPose[], t: number, step: number): void {
    const bodies = this.bodies;
    const a = cars[i];
    const b = cars[j];
    const ra = bodies ? this.placed[i].radius : 0;
    const d = centreDistance(a, b);
    if (d < pair.min_distance_m) {
      pair.min_distance_m = d;
      pair.min_distance_t_s = t;
    }
    const rb = bodies ? this.placed[j].radius : 0;
    const near = d <= PAIR_ROW_DISTANCE_M;
    // The TTC is taken only where it can give a row or a new minimum for the pair.
    // the gap between the cars shrinks no faster than their relative speed (both TTCs keep each car's velocity)
    const relative = Math.hypot(this.vx[i] - this.vx[j], this.vy[i] - this.vy[j]);
    const bound = ttcLowerBound(d, ra, rb, relative, 0) / (1 + BOUND_MARGIN);
    const ttcMatters = near || pair.min_ttc_s === null || bound <= PAIR_ROW_TTC_S || bound <= pair.min_ttc_s;
    const closing = ttcMatters ? closingSpeed(a, b) : 0;
    const ttc = ttcMatters ? this.ttcOf(a, b, i, j, d, closing) : undefined;
    if (ttc !== undefined && (pair.min_ttc_s === null || ttc < pair.min_ttc_s)) {
      pair.min_ttc_s = ttc;
      pair.min_ttc_t_s = t;
      if (this.smallestTtc === null || ttc < this.smallestTtc) this.smallestTtc = ttc;
    }
    const kept = pairRowKept(d, ttc);
    // The gap is at least the distance between the bodies' circumscribed circles.
    const gap = bodies && (kept || pair.min_gap_m === null || d - ra - rb < pair.min_gap_m) ? this.gapAt(k, i, j, step) : undefined;
    if (gap !== undefined && (pair.min_gap_m === null || gap < pair.min_gap_m)) pair.min_gap_m = gap;
    if (!kept) return;
    this.rowed[k] = 1;
    const row = this.rows.number(t).cell(pair.a).cell(pair.b).number(d);
    (gap === undefined ? row.cell(undefined) : row.number(gap)).number(closing);
    (ttc === undefined ? row.cell(undefined) : row.number(ttc)).endRow();
  }

  private ttcOf(a: MovingPose, b: MovingPose, i: number, j: number, d: number, closing: number): number | undefined {
    const bodies = this.bodies;
    // footprint overlap when the cars' sizes are known; Eq. 3.7 (centre distance over closing speed) otherwise
    return bodies ? footprintOverlapTtc(a, bodies[i], b, bodies[j]) : closing > 1e-9 ? d / closing : undefined;
  }

  /** Pair k's bumper-to-bumper gap at this step, computed once. */
  private gapAt(k: number, i: number, j: number, step: number): number {
    if (this.gapStep[k] !== step) {
      this.stepGaps[k] = bodyGap(this.placed[i], this.placed[j]);
      this.gapStep[k] = step;
    }
    return this.stepGaps[k];
  }

  /** Two cars' bumper-to-bumper gap at `step` (the last recorded). */
  gapOf(a: string, b: string, step: number): number {
    let i = this.carIndex.get(a)!;
    let j = this.carIndex.get(b)!;
    if (i > j) [i, j] = [j, i];
    return this.gapAt(this.indexOf(i, j), i, j, step);
  }

  /** Marks two cars' pair as collided at t (its first collision); a wall or an unknown name is no pair. */
  collided(a: string, b: string, t: number): void {
    const i = this.carIndex.get(a);
    const j = this.carIndex.get(b);
    if (i === undefined || j === undefined || i === j) return;
    const k = this.indexOf(Math.min(i, j), Math.max(i, j));
    let pair = this.every ? this.every[k] : this.met!.get(k);
    if (!pair) this.met!.set(k, (pair = unmeasuredPair(this.names[Math.min(i, j)], this.names[Math.max(i, j)])));
    if (pair.collision) return;
    pair.collision = true;
    pair.first_collision_t_s = t;
  }

  private pairOf(a: string, b: string): number {
    const i = this.carIndex.get(a)!;
    const j = this.carIndex.get(b)!;
    return this.indexOf(Math.min(i, j), Math.max(i, j));
  }

  /** Index of the pair of cars i < j in pair order. */
  private indexOf(i: number, j: number): number {
    const n = this.carIndex.size;
    return i * n - (i * (i + 1)) / 2 + (j - i - 1);
  }
}
