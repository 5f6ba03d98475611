/** What of a sweep's result a failed run's line needs (result-row.ts's SweepResult has it). */
interface ResultOfRun {
  id: string;
  status: string;
  values: Record<string, { text: string }>;
  seed: number;
  reason?: string;
  runDir: string;
}

/** A run of the sweep that failed (a component died, it could not start): where, with which seed, and why. */
export interface FailedRun {
  run: string;
  /** The point's swept values, as typed: `network.delay=50ms`. */
  point: string;
  /** The seed it ran with; null when the scenario's own seed was to be used and the run never said which. */
  seed: number | null;
  reason: string;
  run_dir: string;
}

/** What a failed run says when nothing else does. */
export const NO_REASON = 'no reason recorded: see the run folder (summary.json, logs/)';

/** The reason of a run that threw: its message with any details, on one line. */
export function reasonOfError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const details = (error as { details?: unknown }).details;
  const more = Array.isArray(details) ? details.filter((d) => typeof d === 'string' && d) : [];
  const text = [message, ...more]
    .join('; ')
    .replace(/\s*\n\s*/g, ' | ')
    .trim();
  return text || NO_REASON;
}

export function failedRuns(results: readonly ResultOfRun[]): FailedRun[] {
  return results
    .filter((r) => r.status === 'failed')
    .map((r) => ({
      run: r.id,
      point: Object.entries(r.values)
        .map(([path, v]) => `${path}=${v.text}`)
        .join(' '),
      seed: Number.isFinite(r.seed) ? r.seed : null,
      reason: r.reason || NO_REASON,
      run_dir: r.runDir,
    }));
}

/** The lines a sweep prints for its failed runs: `2 runs failed:`, then one per run. */
export function failedRunLines(failed: readonly FailedRun[]): string[] {
  if (!failed.length) return [];
  return [
    `${failed.length} run${failed.length > 1 ? 's' : ''} failed:`,
    ...failed.map(
      (f) => `  ${f.run} (${f.point || 'the scenario as is'}, seed ${f.seed ?? 'of the scenario'}): ${f.reason} [${f.run_dir}]`,
    ),
  ];
}
