import type { CriticalSearchResult } from './critical.js';
import { isFinished, type SweepResult } from './result-row.js';
import type { SweepSpec } from './sweep-folder.js';
import { pointStats, sweptPaths } from './tables.js';
import type { SweepValue } from './values.js';

/** What a sweep found, in words and as figures: the question a sweep asks is where cars collide. */
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
}

const describe = (values: Record<string, SweepValue>, paths: readonly string[]) =>
  paths.map((p) => (paths.length > 1 ? `${p}=${values[p]?.text}` : values[p]?.text)).join(', ');

/** The sweep's answer from its results (finished runs only; failed and invalid ones are counted apart). */
export function sweepAnswer(spec: SweepSpec, results: readonly SweepResult[], critical?: CriticalSearchResult): SweepAnswer {
  const failed = results.filter((r) => r.status === 'failed').length;
  const invalid = results.filter((r) => r.status === 'invalid').length;
  const caveat = [failed ? `${failed} run${failed > 1 ? 's' : ''} failed` : '', invalid ? `${invalid} invalid (not counted)` : '']
    .filter(Boolean)
    .join(', ');
  const withCaveat = (text: string) => (caveat ? `${text} (${caveat})` : text);
  const paths = sweptPaths(spec);
  const points = pointStats(spec, results.filter(isFinished)).filter((p) => p.valid > 0);
  const colliding = points.filter((p) => p.collisions > 0);
  const base = { collision_points: colliding.length, points: points.length, failed_runs: failed, invalid_runs: invalid };

  if (critical) {
    const text =
      critical.status === 'found'
        ? `no collision up to ${critical.lastSafeText ?? critical.lastSafe}, collisions from ${critical.firstCollisionText ?? critical.firstCollision} (${critical.path})`
        : critical.status === 'collides-nowhere'
          ? `no collision anywhere up to ${critical.lastSafeText ?? critical.lastSafe} (${critical.path})`
          : `collisions everywhere from ${critical.firstCollisionText ?? critical.firstCollision} (${critical.path})`;
    return {
      text: withCaveat(text),
      last_safe: critical.lastSafeText ?? null,
      first_collision: critical.firstCollisionText ?? null,
      ...base,
    };
  }
  if (!points.length) return { text: withCaveat('no run finished'), ...base };
  const label = (p: (typeof points)[number]) => describe(p.values, paths);
  const share = (p: (typeof points)[number]) => (p.valid > 1 ? ` (${p.collisions} of ${p.valid} runs)` : '');
  if (!colliding.length)
    return {
      text: withCaveat(`no collision at any of the ${points.length} points, ${label(points[0])} to ${label(points.at(-1)!)}`),
      ...base,
    };
  if (paths.length === 1) {
    const firstHit = points.findIndex((p) => p.collisions > 0);
    const monotonic = points.slice(firstHit).every((p) => p.collisions > 0);
    if (monotonic && firstHit > 0) {
      const safe = points[firstHit - 1];
      const hit = points[firstHit];
      const narrow = narrowing(
        paths[0],
        safe.values[paths[0]],
        hit.values[paths[0]],
        spec.mode.type === 'grid' ? spec.mode.resolution : undefined,
      );
      return {
        text: withCaveat(`no collision up to ${label(safe)}, collisions from ${label(hit)}${share(hit)} (${paths[0]})`),
        last_safe: label(safe),
        first_collision: label(hit),
        ...base,
        ...(narrow ? { narrow } : {}),
      };
    }
    if (monotonic)
      return {
        text: withCaveat(`collisions at every point, from ${label(points[0])}${share(points[0])} (${paths[0]})`),
        last_safe: null,
        first_collision: label(points[0]),
        ...base,
      };
  }
  const listed = colliding
    .slice(0, 6)
    .map((p) => `${label(p)}${share(p)}`)
    .join('; ');
  const more = colliding.length > 6 ? `; and ${colliding.length - 6} more` : '';
  return { text: withCaveat(`collisions at ${colliding.length} of ${points.length} points: ${listed}${more}`), ...base };
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
