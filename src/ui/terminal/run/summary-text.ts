import type { RunSummary } from '../../../run/summary.js';

const fmt = (v: number | null | undefined, unit: string, digits = 3) => (v === null || v === undefined ? '-' : `${v.toFixed(digits)} ${unit}`);

/** The human-readable end of a run, shared by every reporter that prints text. */
export function formatSummary(s: RunSummary, runDir: string): string {
  const lines = [
    `run ${s.run_id} (${s.runtime}) ${s.status}${s.reason ? `: ${s.reason}` : ''}`,
    `  scenario        ${s.scenario}, seed ${s.seed}, ${s.sim_time_s.toFixed(2)} s simulated in ${s.wall_time_s.toFixed(3)} s wall`,
    `  collision       ${s.collision ? `yes, first at t=${s.first_collision_t_s?.toFixed(2)} s (${s.collisions[0].a} / ${s.collisions[0].b})` : 'no'}`,
    `  min TTC         ${fmt(s.min_ttc_s, 's')}`,
    `  min distance    ${fmt(s.min_distance_m, 'm')}`,
    `  V2V             ${s.v2v.sent} sent, ${s.v2v.received} received, ${s.v2v.lost} lost${s.v2v.lost_by_reason?.['run-ended'] ? `, ${s.v2v.lost_by_reason['run-ended']} in flight at the end` : ''}${s.v2v.delivery_ratio != null ? `, ${+(s.v2v.delivery_ratio * 100).toFixed(1)}% of deliveries` : ''}; latency p50 ${fmt(s.v2v.p50_ms, 'ms', 2)}, p99 ${fmt(s.v2v.p99_ms, 'ms', 2)}, max ${fmt(s.v2v.max_ms, 'ms', 2)}`,
  ];
  for (const e of s.events) lines.push(`  t=${e.t_s.toFixed(2)} s  ${e.vehicle} ${e.event}${e.detail ? ' ' + JSON.stringify(e.detail) : ''}`);
  lines.push(`  results         ${runDir}`);
  return lines.join('\n');
}
