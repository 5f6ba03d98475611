import type { ChannelCheckResult, EngineRun } from '../../../api/check-channel.js';
import { orderReasons } from '../../../measurement/delivery-by-distance.js';
import type { RunEvent } from '../../../run/events.js';

export const engineLabel = (engine: string) => (engine === 'ns3' ? 'ns-3' : engine);

const fixed = (v: number | null | undefined) => (v === null || v === undefined ? '-' : v.toFixed(3));

/**
 * `cavsim check channel`'s answer: per distance bin each engine's frames, delivery ratio and loss
 * shares side by side ("builtin / ns-3"), the CBR means, then the deviations and the bound.
 */
export function formatChannelCheck(r: ChannelCheckResult, figure?: string): string {
  const engines = r.runs.map((run) => engineLabel(run.engine));
  const lines = [
    `check channel: ${r.scenario}, broadcast frames in ${r.binWidth} m bins to ${r.maxDistance} m; each cell ${engines.join(' / ')}`,
    ...r.runs.map(
      (run) =>
        `  ${`${engineLabel(run.engine)}:`.padEnd(9)}${run.runDir} (${run.status}${run.reason ? `: ${run.reason}` : ''}, ${run.frames} frames)`,
    ),
    '',
  ];
  const reasons = orderReasons(r.runs.flatMap((run) => run.table.reasons));
  const pair = (of: (run: EngineRun, k: number) => string, k: number) => r.runs.map((run) => of(run, k)).join(' / ');
  const header = ['distance [m]', 'frames', 'delivery', ...reasons];
  const rows = r.runs[0].table.bins.map((bin, k) => [
    `${bin.from}-${bin.to}`,
    pair((run, i) => String(run.table.bins[i].frames), k),
    pair((run, i) => fixed(run.table.bins[i].delivery), k),
    ...reasons.map((reason) => pair((run, i) => (run.table.bins[i].frames ? fixed(run.table.bins[i].losses[reason] ?? 0) : '-'), k)),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  for (const row of [header, ...rows])
    lines.push(
      row
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd(),
    );
  lines.push('');
  lines.push(`CBR mean ${r.runs.map((run) => (run.cbr ? fixed(run.cbr.mean) : 'not measured')).join(' / ')}`);
  const d = r.deviation;
  if (d) {
    const bound = r.maxMad === undefined ? '' : ` (bound ${r.maxMad})`;
    lines.push(
      d.delivery === null
        ? 'delivery MAD: no distance bin has frames in both runs'
        : `delivery MAD ${fixed(d.delivery)}${bound}, over ${d.bins} bin${d.bins === 1 ? '' : 's'}`,
    );
    if (Object.keys(d.losses).length)
      lines.push(
        `loss MAD: ${Object.entries(d.losses)
          .map(([reason, mad]) => `${reason} ${fixed(mad)}`)
          .join(', ')}`,
      );
    const cbr = r.cbrDeviation;
    lines.push(
      cbr
        ? `CBR mean difference ${fixed(cbr.mean)}${bound}${cbr.perCar === null ? '' : `, per-car MAD ${fixed(cbr.perCar)}`}`
        : 'CBR difference: not measured by both engines',
    );
    if (r.maxMad !== undefined) lines.push(r.exceeded.length ? `over the bound: ${r.exceeded.join('; ')}` : 'within the bound');
  } else lines.push(`only ${engines.join(', ')} ran: nothing to compare`);
  lines.push(`files: ${[r.files.table, r.files.result, ...(figure ? [figure] : [])].join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** Progress of the check's runs on stderr: each run's phase and warnings, no per-run summary. */
export function createCheckReporter(write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
  return (e: RunEvent) => {
    if (e.type === 'phase') write(`[${e.phase}]${e.detail ? ` ${e.detail}` : ''}`);
    else if (e.type === 'log' && e.level !== 'info') write(`${e.level}: ${e.message}`);
  };
}
