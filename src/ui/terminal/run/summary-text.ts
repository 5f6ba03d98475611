import { SATURATION_WARNING } from '../../../run/saturation.js';
import type { RunSummary } from '../../../run/summary.js';

const fmt = (v: number | null | undefined, unit: string, digits = 3) =>
  v === null || v === undefined ? '-' : `${v.toFixed(digits)} ${unit}`;

/** The human-readable end of a run, shared by every reporter that prints text. */
export function formatSummary(s: RunSummary, runDir: string): string {
  const lines = [
    `run ${s.run_id} (${s.runtime}) ${s.status}${s.reason ? `: ${s.reason}` : ''}`,
    `  scenario        ${s.scenario}, seed ${s.seed}, ${s.sim_time_s.toFixed(2)} s simulated in ${s.wall_time_s.toFixed(3)} s wall`,
    `  collision       ${s.collision ? `yes, first at t=${s.first_collision_t_s?.toFixed(2)} s (${s.collisions[0].a} / ${s.collisions[0].b})` : 'no'}`,
    `  min TTC         ${fmt(s.min_ttc_s, 's')}`,
    `  min distance    ${fmt(s.min_distance_m, 'm')}`,
    `  V2V             ${v2vCounts(s.v2v)}; latency p50 ${fmt(s.v2v.p50_ms, 'ms', 2)}, p99 ${fmt(s.v2v.p99_ms, 'ms', 2)}, max ${fmt(s.v2v.max_ms, 'ms', 2)}`,
  ];
  for (const w of s.warnings ?? []) if (w.startsWith(SATURATION_WARNING)) lines.push(`  warning         ${w}`);
  for (const e of s.events)
    lines.push(`  t=${e.t_s.toFixed(2)} s  ${e.vehicle} ${e.event}${e.detail ? ` ${JSON.stringify(e.detail)}` : ''}`);
  lines.push(`  results         ${runDir}`);
  return lines.join('\n');
}

/**
 * Messages, then (message, receiver) pairs, each count in one unit: "999 messages to 4000
 * receivers: 3221 received, 775 lost (channel-loss 700, ...)". The reasons add up to the lost.
 */
export function v2vCounts(v: RunSummary['v2v']): string {
  const messages = `${v.sent} message${v.sent === 1 ? '' : 's'}`;
  if (v.sent_pairs === undefined) return `${messages} sent, ${v.received} received, ${v.lost} lost`;
  const reasons = Object.entries(v.lost_by_reason ?? {}).filter(([reason]) => reason !== 'run-ended');
  const parts = [
    `${v.received} received`,
    `${v.lost} lost${reasons.length ? ` (${reasons.map(([r, n]) => `${r} ${n}`).join(', ')})` : ''}`,
  ];
  const queued = v.still_queued_at_end ?? 0;
  if (queued) parts.push(`${queued} still queued at the end`);
  if ((v.in_flight_at_end ?? 0) > queued) parts.push(`${(v.in_flight_at_end ?? 0) - queued} in flight at the end`);
  const ratio = v.delivery_ratio != null ? `, ${+(v.delivery_ratio * 100).toFixed(1)}% delivered` : '';
  const none = v.lost_messages ? `; ${v.lost_messages} message${v.lost_messages === 1 ? '' : 's'} reached no receiver` : '';
  return `${messages} to ${v.sent_pairs} receivers: ${parts.join(', ')}${ratio}${none}`;
}
