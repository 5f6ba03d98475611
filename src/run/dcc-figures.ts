import { DCC_STATES, type DccState } from '../core/v2x/facilities/reactive-dcc.js';
import type { ResolvedScenario } from '../scenario/resolved.js';

/** summary.json's `v2v.dcc`: how the cars with reactive DCC spent the run, from their `dcc-state` events. */
export interface DccFigures {
  cars: number;
  /** Share of the DCC cars' time in each state, from t = 0 (relaxed) to the end of the run. */
  time_share: Record<DccState, number>;
  state_changes: number;
}

interface StateEvent {
  t: number;
  vehicle: string;
  event: string;
  detail?: Record<string, unknown>;
}

export function dccFigures(
  scenario: Pick<ResolvedScenario, 'vehicles'>,
  events: readonly StateEvent[],
  end: number,
): DccFigures | undefined {
  const cars = scenario.vehicles.filter((v) => v.apps.some((a) => 'dcc' in a && a.dcc === 'reactive')).map((v) => v.name);
  if (!cars.length || end <= 0) return undefined;
  const time = Object.fromEntries(DCC_STATES.map((s) => [s, 0])) as Record<DccState, number>;
  const current = new Map<string, { state: DccState; since: number }>(cars.map((c) => [c, { state: 'relaxed', since: 0 }]));
  let changes = 0;
  for (const e of events) {
    const was = current.get(e.vehicle);
    const state = e.detail?.state;
    if (e.event !== 'dcc-state' || !was || !DCC_STATES.includes(state as DccState)) continue;
    time[was.state] += e.t - was.since;
    current.set(e.vehicle, { state: state as DccState, since: e.t });
    changes++;
  }
  for (const { state, since } of current.values()) time[state] += end - since;
  const total = cars.length * end;
  const share = Object.fromEntries(DCC_STATES.map((s) => [s, +(time[s] / total).toFixed(4)])) as Record<DccState, number>;
  return { cars: cars.length, time_share: share, state_changes: changes };
}
