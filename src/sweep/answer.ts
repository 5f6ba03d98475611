import { type Criterion, parseCriteria } from './criteria.js';
import { type CriterionAnswer, criticalCurve, curveAnswer, type PointVerdict, pointVerdicts } from './criterion-answer.js';
import type { CriticalSearchResult } from './critical.js';
import { type FailedRun, failedRuns } from './failed-runs.js';
import { isFinished, type SweepResult } from './result-row.js';
import type { SweepSpec } from './sweep-folder.js';
import { orderResults, pointStats, sweptPaths } from './tables.js';
import type { SweepValue } from './values.js';

/** What a sweep found, in words and as figures: where each criterion (collisions by default) starts to fail. */
export interface SweepAnswer {
  text: string;
  /** One swept field with a monotonic outcome: the largest value without a collision and the smallest with one. */
  last_safe?: string | null;
  first_collision?: string | null;
  collision_points: number;
  points: number;
  failed_runs: number;
  invalid_runs: number;
  /** A grid that brackets the flip between two numbers: the `--find-critical` search that narrows it. */
  narrow?: { path: string; range: string; tolerance: string };
  /** One line per criterion, as the terminal prints them. */
  lines: string[];
  /** Each `--criterion`'s answer: where it flips along the first swept field (per value of the others on a grid). */
  criteria: CriterionAnswer[];
  /** Each failed run: its point, seed and reason (printed after `lines`). */
  failed: FailedRun[];
}

const describe = (values: Record<string, SweepValue>, paths: readonly string[]) =>
  paths.map((p) => (paths.length > 1 ? `${p}=${values[p]?.text}` : values[p]?.text)).join(', ');

/** The sweep's answer from its results (finished runs only; failed and invalid ones are counted apart), per criterion. */
export function sweepAnswer(
  spec: SweepSpec,
  results: readonly SweepResult[],
  critical?: CriticalSearchResult | readonly CriticalSearchResult[],
): SweepAnswer {
  const failed = results.filter((r) => r.status === 'failed').length;
  const invalid = results.filter((r) => r.status === 'invalid').length;
  const caveat = [failed ? `${failed} run${failed > 1 ? 's' : ''} failed` : '', invalid ? `${invalid} invalid (not counted)` : '']
    .filter(Boolean)
    .join(', ');
  const withCaveat = (text: string) => (caveat ? `${text} (${caveat})` : text);
  const valid = orderResults(
    spec,
    results.filter((r) => r.status === 'completed'),
  );
  const zip = zippedView(spec, valid);
  const paths = zip.paths;
  const criteria = parseCriteria(spec.criteria);
  const searches = critical === undefined ? [] : Array.isArray(critical) ? critical : [critical as CriticalSearchResult];
  const answers = criteria.map((c, i) =>
    searches.length ? searchAnswer(c, searches[i] ?? searches[0]) : gridAnswer(spec, c, paths, pointVerdicts(c, paths, zip.results)),
  );
  const collision = answers.find((a) => a.criterion === 'collision');
  const points = pointStats(spec, results.filter(isFinished)).filter((p) => p.valid > 0);
  const base = {
    collision_points: points.filter((p) => p.collisions > 0).length,
    points: points.length,
    failed_runs: failed,
    invalid_runs: invalid,
    failed: failedRuns(results),
    lines: answers.map((a) => withCaveat(a.text)),
  };
  const legacy = collision
    ? { last_safe: collision.last_safe, first_collision: collision.first_fail, ...(collision.narrow ? { narrow: collision.narrow } : {}) }
    : {};
  const text = points.length || searches.length ? answers.map((a) => a.text).join('; ') : 'no run finished';
  return {
    text: withCaveat(text),
    ...(paths.length === 1 || searches.length ? Object.fromEntries(Object.entries(legacy).filter(([, v]) => v !== undefined)) : {}),
    ...base,
    criteria: answers.map(({ narrow: _n, last_safe: _l, first_fail: _f, ...a }) => a),
  };
}

/**
 * A field `--zip` advances with another is one axis for the answer: its path reads
 * `network.delay+network.loss` and each value `100ms+0.2`, ordered by the first field's number.
 */
function zippedView(spec: SweepSpec, results: readonly SweepResult[]): { paths: string[]; results: SweepResult[] } {
  const paths = sweptPaths(spec);
  const zips = spec.mode.type === 'grid' ? spec.axes.filter((a) => a.zipped?.length) : [];
  if (!zips.length) return { paths, results: [...results] };
  const named = (path: string) => {
    const axis = zips.find((a) => a.path === path);
    return axis ? [axis.path, ...axis.zipped!.map((z) => z.path)] : [path];
  };
  return {
    paths: paths.map((p) => named(p).join('+')),
    results: results.map((r) => {
      const values = { ...r.values };
      for (const p of paths) {
        const members = named(p);
        if (members.length > 1) values[members.join('+')] = { ...r.values[p], text: members.map((m) => r.values[m]?.text).join('+') };
      }
      return { ...r, values };
    }),
  };
}

type FullAnswer = CriterionAnswer & { last_safe?: string | null; first_fail?: string | null; narrow?: SweepAnswer['narrow'] };

/** A `--find-critical FIELD` search's answer for one criterion. */
function searchAnswer(c: Criterion, s: CriticalSearchResult): FullAnswer {
  const lo = s.lastSafeText ?? (s.lastSafe === null ? null : String(s.lastSafe));
  const hi = s.firstCollisionText ?? (s.firstCollision === null ? null : String(s.firstCollision));
  const isCollision = c.name === 'collision';
  const text =
    s.status === 'found'
      ? `${c.ok} up to ${lo}, ${isCollision ? 'collisions' : c.bad} from ${hi} (${s.path})`
      : s.status === 'collides-nowhere'
        ? `${isCollision ? 'no collision anywhere' : `${c.ok} everywhere`} up to ${lo} (${s.path})`
        : `${c.bad} everywhere from ${hi} (${s.path})`;
  const cut = {
    at: {},
    last_ok: lo,
    first_fail: hi,
    monotonic: s.monotonic,
    points: s.samples.length,
    failing_points: s.samples.filter((x) => x.collision).length,
  };
  return {
    criterion: c.name,
    text,
    path: s.path,
    curve: [cut],
    failing_points: cut.failing_points,
    points: cut.points,
    last_safe: lo,
    first_fail: hi,
  };
}

/** A grid's answer for one criterion: where it flips along one field, or its critical curve over several. */
function gridAnswer(spec: SweepSpec, c: Criterion, paths: readonly string[], verdicts: PointVerdict[]): FullAnswer {
  if (paths.length > 1) return curveAnswer(c, paths, verdicts);
  const [path] = paths;
  const curve = criticalCurve(paths, verdicts);
  const measured = verdicts.filter((v) => v.fails !== null);
  const failing = measured.filter((v) => v.fails);
  const base = { criterion: c.name, path, curve, failing_points: failing.length, points: measured.length };
  if (!measured.length) return { ...base, text: `${c.name}: not measured by any run` };
  const label = (p: PointVerdict) => describe(p.values, paths);
  const share = (p: PointVerdict) => (p.measured > 1 ? ` (${p.failing} of ${p.measured} runs)` : '');
  if (!failing.length)
    return {
      ...base,
      last_safe: label(measured.at(-1)!),
      first_fail: null,
      text:
        c.name === 'collision'
          ? `no collision at any of the ${measured.length} points, ${label(measured[0])} to ${label(measured.at(-1)!)}`
          : `${c.ok} at all ${measured.length} points, ${label(measured[0])} to ${label(measured.at(-1)!)}`,
    };
  const k = measured.findIndex((p) => p.fails);
  if (measured.slice(k).every((p) => p.fails)) {
    if (k === 0)
      return {
        ...base,
        last_safe: null,
        first_fail: label(measured[0]),
        text: `${c.bad} at every point, from ${label(measured[0])}${share(measured[0])} (${path})`,
      };
    const safe = measured[k - 1];
    const hit = measured[k];
    const narrow =
      c.name === 'collision' && !path.includes('+')
        ? narrowing(path, safe.values[path], hit.values[path], spec.mode.type === 'grid' ? spec.mode.resolution : undefined)
        : undefined;
    return {
      ...base,
      last_safe: label(safe),
      first_fail: label(hit),
      text: `${c.ok} up to ${label(safe)}, ${c.bad} from ${label(hit)}${share(hit)} (${path})`,
      ...(narrow ? { narrow } : {}),
    };
  }
  const listed = failing
    .slice(0, 6)
    .map((p) => `${label(p)}${share(p)}`)
    .join('; ');
  const more = failing.length > 6 ? `; and ${failing.length - 6} more` : '';
  return { ...base, text: `${c.bad} at ${failing.length} of ${measured.length} points: ${listed}${more}` };
}

/**
 * The bracket between the last safe and the first colliding value, searched to a tenth of its
 * width, but no finer than `resolution`, the step the runs can tell apart: a bracket of one such
 * step is already as narrow as a search can make it, and gets no suggestion.
 */
function narrowing(path: string, safe: SweepValue | undefined, hit: SweepValue | undefined, resolution?: number): SweepAnswer['narrow'] {
  if (safe?.value === undefined || hit?.value === undefined || safe.unit !== hit.unit || !(hit.value > safe.value)) return undefined;
  if (resolution !== undefined && hit.value - safe.value <= resolution * (1 + 1e-9)) return undefined;
  const tolerance = Math.max(Number(((hit.value - safe.value) / 10).toPrecision(2)), resolution ?? 0);
  return { path, range: `${safe.value}${safe.unit}..${hit.value}${hit.unit}`, tolerance: `${tolerance}${safe.unit}` };
}
