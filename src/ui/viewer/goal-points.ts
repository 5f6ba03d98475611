import { chooseGoalPoint, type PurePursuitOptions } from '../../core/control/pure-pursuit.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import type { GoalFinder } from './run-data.js';

/**
 * The goal point a pure-pursuit car chooses is a function of its pose and its waypoints, so the
 * view recomputes it from the logged pose with the controller's own code and parameters.
 */
export function goalFinderFor(scenario: Pick<ResolvedScenario, 'vehicles'>): GoalFinder {
  const options = new Map<string, PurePursuitOptions>();
  for (const v of scenario.vehicles) {
    if (v.controller.type !== 'pure-pursuit') continue;
    const { waypoints, lookahead, lookaheadTolerance, gain, speedScale } = v.controller;
    options.set(v.name, { waypoints, lookahead, lookaheadTolerance, gain, speedScale });
  }
  return (vehicle, pose) => {
    const opts = options.get(vehicle);
    if (!opts) return -1;
    return chooseGoalPoint(pose, opts)?.index ?? -1;
  };
}
