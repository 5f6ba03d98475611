import { UserInputError } from '../errors.js';
import type { SweepResult } from './result-row.js';

/**
 * What a researcher calls a failed run, `--criterion NAME` (repeatable): a collision (the default),
 * string instability, or a bound on delivery, age of information or the smallest gap. A point fails
 * a criterion when any of its valid runs does, as a point collides when any of its runs collided.
 */
export interface Criterion {
  /** As written on the command line, normalised: `collision`, `string-stability`, `delivery<0.9`, `aoi>200ms`, `gap<2m`. */
  name: string;
  /** Failing runs in words: `collisions`, `string-unstable`, `delivery below 0.9`. */
  bad: string;
  /** Passing runs in words: `no collision`, `string-stable`, `delivery at least 0.9`. */
  ok: string;
  /** True when the run fails; null when the run does not measure it (no platoon, no V2V). */
  fails(r: SweepResult): boolean | null;
}

export const DEFAULT_CRITERIA = ['collision'] as const;

const FIX =
  'write --criterion collision, string-stability, delivery<RATIO (e.g. delivery<0.9), aoi>TIME (e.g. aoi>200ms) or gap<DISTANCE (e.g. gap<2m)';

const bad = (text: string, why: string) => new UserInputError(`--criterion ${text}: ${why}`, [], FIX);

/** Parses one `--criterion` value; bad syntax is a user error naming the flag and the forms it takes. */
export function parseCriterion(text: string): Criterion {
  const t = text.trim().replace(/\s+/g, '');
  if (t === 'collision') return { name: t, bad: 'collisions', ok: 'no collision', fails: (r) => r.collision };
  if (t === 'string-stability' || t === 'stability')
    return {
      name: 'string-stability',
      bad: 'string-unstable',
      ok: 'string-stable',
      fails: (r) => (typeof r.string_stability_worst === 'number' ? r.string_stability_worst > 1 : null),
    };
  const m = /^(delivery|aoi|gap)([<>])(.+)$/.exec(t);
  if (!m) throw bad(text, 'not a criterion cavsim knows');
  const [, metric, op, raw] = m;
  const expectedOp = metric === 'aoi' ? '>' : '<';
  if (op !== expectedOp)
    throw bad(text, `${metric} fails ${metric === 'aoi' ? 'above' : 'below'} a bound: write ${metric}${expectedOp}${raw}`);
  if (metric === 'delivery') {
    const ratio = /^(\d+(?:\.\d+)?)(%?)$/.exec(raw);
    const value = ratio ? Number(ratio[1]) / (ratio[2] ? 100 : 1) : NaN;
    if (!(value > 0 && value <= 1)) throw bad(text, 'give a ratio above 0 and at most 1 (0.9) or a percentage (90%)');
    return {
      name: `delivery<${+value.toFixed(6)}`,
      bad: `delivery below ${+value.toFixed(6)}`,
      ok: `delivery at least ${+value.toFixed(6)}`,
      fails: (r) => (typeof r.delivery_ratio === 'number' ? r.delivery_ratio < value : null),
    };
  }
  if (metric === 'aoi') {
    const q = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(raw);
    if (!q) throw bad(text, 'give a time with its unit, e.g. aoi>200ms or aoi>0.5s');
    const ms = Number(q[1]) * (q[2] === 's' ? 1000 : 1);
    if (!(ms > 0)) throw bad(text, 'the bound must be greater than zero');
    return {
      name: `aoi>${+ms.toFixed(6)}ms`,
      bad: `AoI above ${+ms.toFixed(6)} ms`,
      ok: `AoI at most ${+ms.toFixed(6)} ms`,
      fails: (r) => (typeof r.beacon_age_mean_ms === 'number' ? r.beacon_age_mean_ms > ms : null),
    };
  }
  const q = /^(\d+(?:\.\d+)?)(m|cm)$/.exec(raw);
  if (!q) throw bad(text, 'give a distance with its unit, e.g. gap<2m');
  const metres = Number(q[1]) * (q[2] === 'cm' ? 0.01 : 1);
  return {
    name: `gap<${+metres.toFixed(6)}m`,
    bad: `gap below ${+metres.toFixed(6)} m`,
    ok: `gap at least ${+metres.toFixed(6)} m`,
    fails: (r) => (typeof r.min_gap_m === 'number' ? r.min_gap_m < metres : r.collision ? true : null),
  };
}

/** Every `--criterion` given (collision when none), each once, in the order written. */
export function parseCriteria(texts: readonly string[] | undefined): Criterion[] {
  const parsed = (texts?.length ? texts : DEFAULT_CRITERIA).map(parseCriterion);
  const seen = new Set<string>();
  return parsed.filter((c) => !seen.has(c.name) && seen.add(c.name));
}

/** The verdict of one point's runs: fails when any run fails; null when none measured it. */
export function pointFails(c: Criterion, runs: readonly SweepResult[]): { fails: boolean | null; failing: number; measured: number } {
  const verdicts = runs.map((r) => c.fails(r)).filter((v): v is boolean => v !== null);
  const failing = verdicts.filter(Boolean).length;
  return { fails: verdicts.length ? failing > 0 : null, failing, measured: verdicts.length };
}
