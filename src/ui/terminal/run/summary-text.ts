import { SATURATION_WARNING } from '../../../run/saturation.js';
import type { RunSummary } from '../../../run/summary.js';

const fmt = (v: number | null | undefined, unit: string, digits = 3) =>
  v === null || v === undefined ? '-' : `${v.toFixed(digits)} ${unit}`;

/** `n` things, in agreement: "1 receiver", "2 receivers". */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Whether cars collided, as far as the run can tell: a run that did not end as planned (failed,
 * interrupted) saw no collision only up to where it stopped.
 */
export function collisionText(s: Pick<RunSummary, 'status' | 'collision' | 'first_collision_t_s' | 'collisions' | 'sim_time_s'>): string {
  if (s.collision) return `yes, first at t=${s.first_collision_t_s?.toFixed(2)} s (${s.collisions[0].a} / ${s.collisions[0].b})`;
  if (s.status === 'completed' || s.status === 'invalid') return 'no';
  return s.sim_time_s > 0
    ? `none in the ${s.sim_time_s.toFixed(2)} s simulated before the run ${s.status === 'failed' ? 'failed' : 'stopped'}`
    : 'not known: the run never stepped';
}

/** A platoon's string stability: the worst ratio of a follower's peak gap error to its predecessor's. */
export function stringStabilityText(p: RunSummary['platoon']): string | undefined {
  const st = p?.string_stability;
  if (!st) return undefined;
  const known = st.ratios.filter((r): r is { vehicle: string; ratio: number } => r.ratio !== null);
  if (!known.length) return 'not measured (no predecessor had a gap error)';
  const worst = known.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const verdict = st.stable ? 'stable' : 'UNSTABLE';
  return `${verdict}: worst gap-error ratio ${worst.ratio.toFixed(2)} (${worst.vehicle}; stable at most 1) over ${counted(st.ratios.length, 'follower')}`;
}

/** The human-readable end of a run, shared by every reporter that prints text. */
export function formatSummary(s: RunSummary, runDir: string): string {
  const lines = [
    `run ${s.run_id} (${s.runtime}) ${s.status}${s.reason ? `: ${s.reason}` : ''}`,
    `  scenario        ${s.scenario}, seed ${s.seed}, ${s.sim_time_s.toFixed(2)} s simulated in ${s.wall_time_s.toFixed(3)} s wall`,
    `  collision       ${collisionText(s)}`,
    `  min TTC         ${s.min_ttc_s !== null ? fmt(s.min_ttc_s, 's') : s.fleet ? 'not measured (a fleet keeps no per-pair figures)' : 'none (no two cars ever closed on each other)'}`,
    `  min distance    ${fmt(s.min_distance_m, 'm')}`,
    `  V2V             ${v2vCounts(s.v2v)}; latency p50 ${fmt(s.v2v.p50_ms, 'ms', 2)}, p99 ${fmt(s.v2v.p99_ms, 'ms', 2)}, max ${fmt(s.v2v.max_ms, 'ms', 2)}`,
  ];
  for (const w of s.warnings ?? []) if (w.startsWith(SATURATION_WARNING)) lines.push(`  warning         ${w}`);
  const stability = stringStabilityText(s.platoon);
  if (stability) lines.push(`  platoon         string ${stability}`);
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
  const messages = counted(v.sent, 'message');
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
  const none = v.lost_messages ? `; ${counted(v.lost_messages, 'message')} reached no receiver` : '';
  return `${messages} to ${counted(v.sent_pairs, 'receiver')}: ${parts.join(', ')}${ratio}${none}`;
}
