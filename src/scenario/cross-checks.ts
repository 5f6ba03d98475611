import type { MapLoader } from '../core/map/map-loader.js';
import { isLaterallyStableAt } from '../core/physics/lateral-stability.js';
import type { ParamProblem } from '../core/physics/parameter-ranges.js';
import type { VehicleParams } from '../core/physics/types.js';
import { checkVehicleParams, lateralStabilityWarning } from '../core/physics/vehicle-param-checks.js';
import { dccProblems } from './dcc-checks.js';
import { externalProblems } from './external-device.js';
import type { ResolvedScenario, ResolvedVehicle } from './resolved.js';
import { reverseSpeedProblems } from './reverse-speeds.js';
import type { ScenarioProblem } from './scenario-problem.js';
import { checkStartPlacement } from './start-placement.js';

/** Step 3 of 3: rules that relate fields to each other and to the map. */
export async function crossCheckScenario(s: ResolvedScenario, loadMap?: MapLoader): Promise<ScenarioProblem[]> {
  const problems: ScenarioProblem[] = [];
  const names = new Map<string, number>();
  s.vehicles.forEach((v, i) => {
    if (names.has(v.name))
      problems.push({
        path: ['vehicles', i, 'name'],
        message: `"${v.name}" is already used by vehicles[${names.get(v.name)}]; names must be unique`,
      });
    else names.set(v.name, i);
  });

  if (s.record?.scans && !s.vehicles.some((v) => v.lidar)) {
    problems.push({ path: ['record', 'scans'], message: 'no car has a lidar to record; give a car `lidar: {}`, or drop record.scans' });
  }

  // A traffic block's cars share one params object: checked once.
  const paramProblems = new Map<VehicleParams, ParamProblem[]>();
  for (const v of s.vehicles) {
    const at = (...rest: (string | number)[]) => ['vehicles', v.index, ...rest];
    v.observes.forEach((o, j) => {
      if (o === v.name) problems.push({ path: at('observes', j), message: `a car always knows its own state; remove "${o}"` });
      else if (!names.has(o))
        problems.push({ path: at('observes', j), message: `no vehicle named "${o}"; use one of ${[...names.keys()].join(', ')}` });
    });
    const p = v.params;
    if (p.s_min >= p.s_max) problems.push({ path: at('params'), message: `s_min (${p.s_min}) must be below s_max (${p.s_max})` });
    if (p.sv_min >= p.sv_max) problems.push({ path: at('params'), message: `sv_min (${p.sv_min}) must be below sv_max (${p.sv_max})` });
    if (p.v_min >= p.v_max) problems.push({ path: at('params'), message: `v_min (${p.v_min}) must be below v_max (${p.v_max})` });
    if (!paramProblems.has(p)) paramProblems.set(p, checkVehicleParams(p, s.physics));
    for (const problem of paramProblems.get(p)!) {
      problems.push({ path: problem.param ? at('params', problem.param) : at('params'), message: problem.message });
    }
    if (v.start.speed > p.v_max || v.start.speed < p.v_min) {
      problems.push({ path: at('start', 'speed'), message: `${v.start.speed} m/s is outside the car's limits [${p.v_min}, ${p.v_max}]` });
    }
    if (v.controller.type === 'lane-keeping' && v.controller.speed > p.v_max)
      problems.push({ path: at('controller', 'speed'), message: `${v.controller.speed} m/s is above the car's v_max (${p.v_max} m/s)` });
    problems.push(...reverseSpeedProblems(v));
    if (1 / v.controlRate < s.physics.timestep - 1e-12) {
      problems.push({
        path: at('controlRate'),
        message: `${v.controlRate}Hz is faster than the physics step (${1 / s.physics.timestep}Hz); use at most ${1 / s.physics.timestep}Hz`,
      });
    }
    // beacons and CAMs both carry a car's state into the others' neighbour tables
    const beaconing = (name: string) =>
      s.vehicles.some((o) => o.name === name && o.apps.some((a) => a.type === 'beacon' || a.type === 'cam'));
    const otherCar = (name: string, field: string, j: number) => {
      const others = [...names.keys()].filter((n) => n !== v.name);
      if (!names.has(name))
        problems.push({
          path: at('apps', j, field),
          message: `no vehicle named "${name}"; ${others.length ? `use one of ${others.join(', ')}` : `${v.name} is the only car: add the car it names`}`,
        });
      else if (name === v.name)
        problems.push({ path: at('apps', j, field), message: `${field} must be another car, not ${v.name} itself` });
    };
    v.apps.forEach((app, j) => {
      if ((app.type === 'beacon' || app.type === 'warning') && app.to !== '*') otherCar(app.to, 'to', j);
      if (app.type === 'cacc') {
        otherCar(app.predecessor, 'predecessor', j);
        if (app.leader !== undefined) otherCar(app.leader, 'leader', j);
        if (app.gap === 'geometric' && names.has(app.predecessor) && app.predecessor !== v.name && !beaconing(app.predecessor)) {
          problems.push({
            path: at('apps', j, 'predecessor'),
            message: `the gap comes from ${app.predecessor}'s beacons or CAMs: give it a beacon or cam app, or use gap: lidar`,
          });
        }
        if (app.gap === 'lidar' && !v.lidar)
          problems.push({
            path: at('apps', j, 'gap'),
            message: `gap: lidar needs vehicles.${v.name}.lidar enabled, or use gap: geometric`,
          });
      }
      if (app.type === 'cpm' && !v.lidar)
        problems.push({
          path: at('apps', j),
          message: `the cpm app reports what the car's lidar perceives: give vehicles.${v.name} a lidar ({} for the default)`,
        });
      if (
        app.type === 'denm' &&
        app.perceived &&
        !(app.on === 'collision-risk' && s.vehicles.some((o) => o.name !== v.name && o.apps.some((a) => a.type === 'cpm')))
      ) {
        problems.push({
          path: at('apps', j, 'perceived'),
          message:
            "perceived: true is for on: collision-risk, with the objects in other cars' CPMs: give another car a cpm app (and a lidar)",
        });
      }
      if (app.type !== 'ttc-brake-sender') return;
      const perceiving = app.perceived === true && s.vehicles.some((o) => o.name !== v.name && o.apps.some((a) => a.type === 'cpm'));
      if (app.perceived && !perceiving)
        problems.push({
          path: at('apps', j, 'perceived'),
          message: "perceived: true watches the objects in other cars' CPMs: give another car a cpm app (and a lidar)",
        });
      if (app.to !== '*' && !names.has(app.to))
        problems.push({ path: at('apps', j, 'to'), message: `no vehicle named "${app.to}"; use a vehicle name or "*"` });
      if (app.to === v.name) problems.push({ path: at('apps', j, 'to'), message: 'a car cannot send the brake message to itself' });
      if (app.source === 'infrastructure' && !v.observes.length) {
        problems.push({
          path: at('apps', j),
          message: `a TTC monitor needs other cars' state: add them to vehicles.${v.name}.observes, or use source: neighbours`,
        });
      }
      if (app.source === 'neighbours' && !perceiving && !s.vehicles.some((o) => o.name !== v.name && beaconing(o.name))) {
        problems.push({
          path: at('apps', j, 'source'),
          message: 'source: neighbours knows other cars only by their beacons or CAMs: give them a beacon or cam app',
        });
      }
    });
  }
  problems.push(...predecessorCycles(s));
  problems.push(...externalProblems(s));
  problems.push(...dccProblems(s));
  if (!problems.length) problems.push(...(await checkStartPlacement(s, loadMap)));
  return problems;
}

/**
 * CACC followers whose predecessors lead back to themselves (car1 follows car2 follows car1): no car
 * of such a loop leads, so each speeds up to close the gap to the other and they crash. Each loop
 * is named once, at its first car.
 */
function predecessorCycles(s: ResolvedScenario): ScenarioProblem[] {
  const predecessor = new Map<string, { of: string; index: number; app: number }>();
  for (const v of s.vehicles) {
    v.apps.forEach((app, j) => {
      if (app.type === 'cacc' && app.predecessor !== v.name && !predecessor.has(v.name))
        predecessor.set(v.name, { of: app.predecessor, index: v.index, app: j });
    });
  }
  const reported = new Set<string>();
  const problems: ScenarioProblem[] = [];
  for (const start of predecessor.keys()) {
    const path = [start];
    for (
      let at = predecessor.get(start)?.of;
      at !== undefined && predecessor.has(at) && path.length <= predecessor.size;
      at = predecessor.get(at)?.of
    ) {
      if (at === start) {
        if (!path.some((n) => reported.has(n))) {
          path.forEach((n) => reported.add(n));
          const p = predecessor.get(start)!;
          problems.push({
            path: ['vehicles', p.index, 'apps', p.app, 'predecessor'],
            message: `the CACC predecessors form a loop (${[...path, start].join(' -> ')}): no car in it leads; make one of them follow a car outside the loop, or lead`,
          });
        }
        break;
      }
      if (path.includes(at)) break;
      path.push(at);
    }
  }
  return problems;
}

/** Cars whose lateral dynamics the physics step may not integrate stably: said, and run. */
export function stabilityWarnings(s: ResolvedScenario): ScenarioProblem[] {
  const warnings = new Map<VehicleParams, ParamProblem | undefined>();
  return s.vehicles.flatMap((v) => {
    if (keepsStableSpeed(v, s)) return [];
    if (!warnings.has(v.params)) warnings.set(v.params, lateralStabilityWarning(v.params, s.physics));
    const w = warnings.get(v.params);
    return w ? [{ path: ['vehicles', v.index, 'params', ...(w.param ? [w.param] : [])], message: w.message }] : [];
  });
}

/** Apps that only send: a car with no others keeps the speed its controller holds. */
const SENDING_APPS: ReadonlySet<string> = new Set(['beacon', 'cam', 'cpm']);

/**
 * A traffic car that only sends keeps its lane's speed for the whole run (or stays parked): the
 * speeds it never drives at cannot make its physics diverge, so only its own speed is checked.
 */
function keepsStableSpeed(v: ResolvedVehicle, s: ResolvedScenario): boolean {
  const t = s.traffic;
  if (!t || v.index < t.first || v.index >= t.first + t.count) return false;
  if (!v.apps.every((a) => SENDING_APPS.has(a.type))) return false;
  return isLaterallyStableAt(v.params, v.start.speed, s.physics.timestep, s.physics.integrator);
}
