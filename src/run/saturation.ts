import type { ResolvedScenario } from '../scenario/resolved.js';
import { channelLoad, overdueAfter } from './channel-load.js';
import type { LatencyFigures } from './summary.js';

/** How the saturation warning begins, so a reader of summary.json's `warnings` can pick it out. */
export const SATURATION_WARNING = 'the V2V channel saturated';

/** Share of the (message, receiver) pairs dropped from full queues from which a run counts as saturated. */
const QUEUE_DROP_SHARE = 0.01;

/**
 * Whether a finished run's queues or latencies show that the channel carried less than the apps
 * offered, and the warning that says so with its figures: frames still queued long after they were
 * sent, frames dropped from full queues, or a median latency past the channel's own delay plus 100 ms.
 * Undefined for a run that sent nothing.
 */
export function saturationOf(
  v2v: LatencyFigures,
  scenario: ResolvedScenario,
  runtime: 'sim' | 'docker',
): { saturated: boolean; warning?: string } | undefined {
  const pairs = v2v.sent_pairs ?? v2v.received + v2v.lost;
  if (!v2v.sent || !pairs) return undefined;
  const bound = overdueAfter(scenario.network);
  const signs: string[] = [];
  const queued = v2v.still_queued_at_end ?? 0;
  if (queued > 0) signs.push(`${queued} of ${pairs} receptions still queued at the end (sent over ${ms(bound)} before it)`);
  const dropped = v2v.lost_by_reason?.['queue-drop'] ?? 0;
  if (dropped > QUEUE_DROP_SHARE * pairs) signs.push(`${dropped} of ${pairs} receptions dropped from full queues`);
  if (v2v.p50_ms !== null && v2v.p50_ms > bound * 1000)
    signs.push(`latency p50 ${v2v.p50_ms.toFixed(1)} ms where the channel's own delay allows ${ms(bound)}`);
  if (!signs.length) return { saturated: false };
  const load = channelLoad(scenario, runtime);
  const fix = load ? ` Fix: ${load.fix}.` : ' Fix: send less often or smaller, or give the channel more capacity.';
  return {
    saturated: true,
    warning: `${SATURATION_WARNING}: ${signs.join('; ')}. Latencies and delivery measure the queue, not the channel's delay.${fix}`,
  };
}

const ms = (s: number) => `${+(s * 1000).toPrecision(3)} ms`;
