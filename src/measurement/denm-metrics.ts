import { DENM_MESSAGE } from '../core/v2x/facilities/den-service.js';
import { type Spread, spread } from './cam-metrics.js';

export interface DenmFigures {
  /** DENM events the cars' DEN services triggered (a `denm` app, or a `warning` with `format: denm`). */
  triggered: number;
  /** (event, other car) pairs where a DENM of the event arrived. */
  received: number;
  /** The first DENM of an event to arrive at a car, minus the event's time; over `received`. */
  event_to_reception: Spread | null;
  /** Apps that acted on a DENM (a warning or brake receiver, at their next control tick): their tick minus the event's time. */
  event_to_action: Spread | null;
}

interface AppEvent {
  t: number;
  vehicle: string;
  event: string;
  detail?: Record<string, unknown>;
}

interface Arrival {
  from: string;
  to: string;
  type: string;
  sentAt: number;
  receivedAt: number;
}

const isDenmTrigger = (e: AppEvent) => e.event === 'denm-triggered' || (e.event === 'warning-started' && e.detail?.format === 'denm');
const EPS = 1e-9;

/** DENM figures from a run's app events and V2V arrivals; null when no car triggered a DENM. */
export function denmFigures(events: readonly AppEvent[], arrivals: readonly Arrival[]): DenmFigures | null {
  const triggers = events.filter(isDenmTrigger).sort((a, b) => a.t - b.t);
  if (!triggers.length) return null;
  const denms = arrivals.filter((a) => a.type === DENM_MESSAGE);
  const receptions: number[] = [];
  for (const [i, trigger] of triggers.entries()) {
    // the sender's DENMs from this event on, until its next event
    const next = triggers.slice(i + 1).find((t) => t.vehicle === trigger.vehicle)?.t ?? Infinity;
    const first = new Map<string, number>();
    for (const a of denms) {
      if (a.from !== trigger.vehicle || a.sentAt < trigger.t - EPS || a.sentAt >= next - EPS) continue;
      first.set(a.to, Math.min(first.get(a.to) ?? Infinity, a.receivedAt));
    }
    for (const at of first.values()) receptions.push(at - trigger.t);
  }
  const actions = events.flatMap((e) =>
    e.detail?.format === 'denm' && typeof e.detail.detected_s === 'number' && !isDenmTrigger(e) ? [e.t - e.detail.detected_s] : [],
  );
  return {
    triggered: triggers.length,
    received: receptions.length,
    event_to_reception: spread(Float64Array.from(receptions)),
    event_to_action: spread(Float64Array.from(actions)),
  };
}
