import { KINEMATIC_SWITCH_SPEED } from '../core/physics/model-constants.js';
import type { ResolvedVehicle } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';

const WHY = `f1tenth_gym's single-track model, which cavsim reproduces, diverges when a car reverses faster than ${KINEMATIC_SWITCH_SPEED} m/s with its wheels turned`;

/** Speeds a car would reverse at beyond what the model integrates: at the start, in a schedule, on waypoints. */
export function reverseSpeedProblems(v: ResolvedVehicle): ScenarioProblem[] {
  const at = (...rest: (string | number)[]) => ['vehicles', v.index, ...rest];
  const tooFast = (speed: number) => speed < -KINEMATIC_SWITCH_SPEED;
  const problems: ScenarioProblem[] = [];
  if (tooFast(v.start.speed))
    problems.push({
      path: at('start', 'speed'),
      message: `${v.start.speed} m/s reverses too fast: ${WHY}; use -${KINEMATIC_SWITCH_SPEED} m/s or more`,
    });
  const c = v.controller;
  const speeds =
    c.type === 'open-loop'
      ? c.schedule.map((s) => s.speed)
      : c.type === 'pure-pursuit' || c.type === 'rrt'
        ? c.waypoints.map((w) => w.speed)
        : [];
  const first = speeds.findIndex(tooFast);
  if (first >= 0) {
    const field = c.type === 'open-loop' ? 'schedule' : 'waypoints';
    problems.push({
      path: at('controller', field),
      message: `entry ${first} asks for ${speeds[first]} m/s: ${WHY}; use speeds of -${KINEMATIC_SWITCH_SPEED} m/s or more`,
    });
  }
  return problems;
}
