/** Outcome of the runs at one sampled value. */
export interface Verdict {
  collision: boolean;
  /** The repeats (seeds) at this value disagreed; `collision` is then true (any run collided). */
  mixed?: boolean;
}

export interface Sample extends Verdict {
  value: number;
}

/** Runs every value given (in parallel where it can) and tells whether each collided. */
export type Probe = (values: number[]) => Promise<Verdict[]>;

export interface CriticalSearchOptions {
  lo: number;
  hi: number;
  /** Stop when the bracket is at most this wide. */
  tolerance: number;
  /** Evenly spaced values sampled first, ends included; they find the bracket and test monotonicity. */
  coarse: number;
  /** Values probed per refinement round (the bracket is cut into parallel + 1 parts). */
  parallel: number;
  onSample?: (sample: Sample, bracket: { lo: number; hi: number } | null) => void;
  /** Maps each generated value to the value actually run (e.g. rounded as written to the scenario). */
  snap?: (value: number) => number;
}

export interface CriticalSearchResult {
  path: string;
  unit: string;
  /** found: the outcome flips inside the range; the others: it does not. */
  status: 'found' | 'collides-everywhere' | 'collides-nowhere';
  /** Largest sampled value below the boundary without a collision. */
  lastSafe: number | null;
  /** Smallest sampled value above lastSafe with a collision. */
  firstCollision: number | null;
  tolerance: number;
  /** The step the runs can tell apart, when known: the bracket is reported at it. */
  resolution?: number;
  /** lastSafe and firstCollision as written with their unit (e.g. `270ms`). */
  lastSafeText?: string | null;
  firstCollisionText?: string | null;
  /** True when, on the sampled values in order, no collision is followed by a value without one. */
  monotonic: boolean;
  notes: string[];
  samples: Sample[];
}

/**
 * Searches [lo, hi] for the value where the outcome flips from no collision to collision.
 * A coarse pass finds the first flip and checks monotonicity; then the bracket around that flip is
 * cut until it is no wider than the tolerance. Every value is probed once. The search only trusts
 * a flip it has seen; when the samples are not monotonic it says so and reports the first flip.
 */
export async function findCritical(probe: Probe, opts: CriticalSearchOptions): Promise<Omit<CriticalSearchResult, 'path' | 'unit'>> {
  if (!(opts.hi > opts.lo)) throw new Error(`empty range ${opts.lo}..${opts.hi}`);
  if (!(opts.tolerance > 0)) throw new Error('the tolerance must be greater than zero');
  const samples = new Map<number, Sample>();
  const sample = async (values: number[], bracket: { lo: number; hi: number } | null) => {
    const snap = opts.snap ?? ((v: number) => v);
    const fresh = [...new Set(values.map(snap))].filter((v) => !samples.has(v));
    const verdicts = await probe(fresh);
    fresh.forEach((value, i) => {
      const s = { value, ...verdicts[i] };
      samples.set(value, s);
      opts.onSample?.(s, bracket);
    });
  };

  const coarse = Math.max(2, Math.floor(opts.coarse));
  await sample(
    Array.from({ length: coarse }, (_, i) => (i === coarse - 1 ? opts.hi : opts.lo + ((opts.hi - opts.lo) * i) / (coarse - 1))),
    null,
  );

  let bracket = firstFlip(sorted(samples));
  while (bracket && bracket.hi - bracket.lo > opts.tolerance) {
    const parts = Math.max(1, opts.parallel) + 1;
    const { lo, hi } = bracket;
    await sample(
      Array.from({ length: parts - 1 }, (_, i) => lo + ((hi - lo) * (i + 1)) / parts),
      bracket,
    );
    bracket = firstFlipWithin(sorted(samples), lo, hi) ?? bracket;
    if (bracket.lo === lo && bracket.hi === hi) break; // cannot happen with fresh midpoints; guards against a loop
  }

  const all = sorted(samples);
  const notes = monotonicityNotes(all);
  for (const s of all) if (s.mixed) notes.push(`the repeats disagree at ${round(s.value)}: some collided, some did not`);
  const monotonic = notes.length === 0;
  if (!bracket) {
    const status = all[0].collision ? 'collides-everywhere' : 'collides-nowhere';
    return {
      status,
      lastSafe: status === 'collides-nowhere' ? all.at(-1)!.value : null,
      firstCollision: status === 'collides-everywhere' ? all[0].value : null,
      tolerance: opts.tolerance,
      monotonic,
      notes,
      samples: all,
    };
  }
  return { status: 'found', lastSafe: bracket.lo, firstCollision: bracket.hi, tolerance: opts.tolerance, monotonic, notes, samples: all };
}

const sorted = (samples: Map<number, Sample>) => [...samples.values()].sort((a, b) => a.value - b.value);

const round = (v: number) => +v.toFixed(6);

/** The first no-collision → collision step in value order; null when the first sample collides or none does. */
function firstFlip(samples: Sample[]): { lo: number; hi: number } | null {
  const k = samples.findIndex((s) => s.collision);
  if (k <= 0) return null;
  return { lo: samples[k - 1].value, hi: samples[k].value };
}

function firstFlipWithin(samples: Sample[], lo: number, hi: number): { lo: number; hi: number } | null {
  return firstFlip(samples.filter((s) => s.value >= lo && s.value <= hi));
}

/** One note per collision followed (at a larger value) by a run without one. */
export function monotonicityNotes(samples: readonly Sample[]): string[] {
  const notes: string[] = [];
  let firstCollision: Sample | undefined;
  for (const s of samples) {
    if (s.collision) firstCollision ??= s;
    else if (firstCollision) notes.push(`not monotonic: collision at ${round(firstCollision.value)} but none at ${round(s.value)}`);
  }
  return notes;
}
