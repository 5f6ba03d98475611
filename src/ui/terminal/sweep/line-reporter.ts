import type { CriticalSearchResult } from '../../../sweep/critical.js';
import type { SweepEvent } from '../../../sweep/events.js';
import type { SweepResult } from '../../../sweep/result-row.js';

const fmt = (v: number | null, digits = 3) => (v === null ? '-' : v.toFixed(digits));

export function formatDurationShort(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${String(Math.round(seconds - m * 60)).padStart(2, '0')}s`;
}

export function describeValues(result: Pick<SweepResult, 'values'>): string {
  return Object.entries(result.values)
    .map(([path, v]) => `${path}=${v.text}`)
    .join(' ');
}

export function formatRunLine(r: SweepResult): string {
  const outcome = r.collision ? 'COLLISION' : 'ok';
  const verdict = r.status === 'completed' ? outcome : r.status === 'invalid' ? `INVALID (${outcome})` : r.status.toUpperCase();
  const seed = Number.isFinite(r.seed) ? ` seed ${r.seed}` : '';
  return `${describeValues(r)}${seed}: ${verdict}, min TTC ${r.min_ttc_s === null ? 'none' : `${fmt(r.min_ttc_s)} s`}, min distance ${r.min_distance_m === null ? 'none' : `${fmt(r.min_distance_m)} m`}, V2V p99 ${r.v2v_p99_ms === null ? 'none' : `${fmt(r.v2v_p99_ms, 1)} ms`}`;
}

export function formatCritical(c: CriticalSearchResult): string[] {
  const lines: string[] = [];
  const u = c.unit;
  const safe = c.lastSafeText ?? `${c.lastSafe}${u}`;
  const hit = c.firstCollisionText ?? `${c.firstCollision}${u}`;
  const at = c.resolution
    ? `the runs tell ${c.path} apart in steps of ${+c.resolution.toFixed(6)}${u} (one control tick)`
    : `within ${+c.tolerance.toFixed(6)}${u}`;
  if (c.status === 'found') lines.push(`critical ${c.path}: no collision at ${safe}, collision at ${hit}; ${at}`);
  else if (c.status === 'collides-nowhere') lines.push(`no collision anywhere in the range: the critical ${c.path} is above ${safe}`);
  else lines.push(`collision everywhere in the range: the critical ${c.path} is below ${hit}`);
  lines.push(
    c.monotonic
      ? `outcome monotonic on all ${c.samples.length} sampled values`
      : `WARNING: ${c.notes.join('; ')}; the boundary reported is the first flip`,
  );
  return lines;
}

/** Plain lines for logs, CI and non-TTY output: one line per finished run, warnings, the end. */
export function createSweepLineReporter(write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
  return (e: SweepEvent) => {
    switch (e.type) {
      case 'sweep-start':
        write(
          `sweep ${e.sweepId}: ${e.total} runs (${e.runtime}, ${e.jobs} at a time)${e.alreadyDone ? `, ${e.alreadyDone} already done` : ''} → ${e.dir}`,
        );
        break;
      case 'run-done': {
        const eta = e.etaSeconds && e.done < e.total ? `, ETA ${formatDurationShort(e.etaSeconds)}` : '';
        write(`[${e.done}/${e.total}${eta}] ${formatRunLine(e.result)}`);
        break;
      }
      case 'warn':
        write(`warning: ${e.message}`);
        break;
      case 'critical-probe':
        if (e.bracket)
          write(`  searching ${e.path} in ${e.bracket.lo}..${e.bracket.hi}: ${e.value} → ${e.collision ? 'collision' : 'no collision'}`);
        break;
      case 'critical-result':
        for (const l of formatCritical(e.result)) write(l);
        break;
      case 'answer':
        write(`answer: ${e.answer.text}`);
        break;
      case 'sweep-done':
        write(
          `${e.stopped ? 'stopped' : 'done'}: ${e.done} runs finished in ${formatDurationShort(e.wallSeconds)}${e.stopped ? `; continue with --resume ${e.sweepId}` : ''}`,
        );
        break;
      default:
        break;
    }
  };
}
