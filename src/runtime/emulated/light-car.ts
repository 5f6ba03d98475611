import type { ResolvedScenario, ResolvedVehicle } from '../../scenario/resolved.js';
import { runsOwnCode } from '../../scenario/resolved.js';
import { createRandom, deriveSeed } from '../../util/random.js';
import { stepSchedule } from '../../world/step-schedule.js';

/** Where the vehicle image has the light-car program (containers/vehicle/light-car, built into dist/). */
export const LIGHT_CAR_PROGRAM = '/opt/cavsim/dist/light-car/cavsim-light-car';
/** The program in a build, relative to its root. */
export const LIGHT_CAR_BUILT = 'dist/light-car/cavsim-light-car';

const LIGHT_CONTROLLERS: ReadonlySet<string> = new Set(['pure-pursuit', 'lane-keeping', 'open-loop', 'idle']);

type BeaconApp = Extract<ResolvedVehicle['apps'][number], { type: 'beacon' }>;
const isBeacon = (app: ResolvedVehicle['apps'][number]): app is BeaconApp => app.type === 'beacon';

/**
 * Why a car runs the Node vehicle program rather than the light one, or undefined when it may run
 * the light one: cavsim's pure pursuit, lane keeping, open loop or idle, beacons as its only apps, no lidar, no
 * observed cars, in a scenario where every car that sends V2V sends only beacons (the light program
 * reads no standard message, so it could not drop a malformed one as the Node program does).
 */
export function notLight(scenario: ResolvedScenario, v: ResolvedVehicle): string | undefined {
  if (runsOwnCode(v)) return 'runs its own code';
  if (!LIGHT_CONTROLLERS.has(v.controller.type)) return `its controller is ${v.controller.type}`;
  const app = v.apps.find((a) => !isBeacon(a));
  if (app) return `it has a ${app.type} app`;
  if (v.lidar) return 'it has a lidar';
  if (v.observes.length) return 'it observes other cars';
  const sender = scenario.vehicles.find((u) => u.apps.some((a) => !isBeacon(a)) || runsOwnCode(u));
  if (sender) return `${sender.name} may send V2V other than beacons`;
  return undefined;
}

/**
 * CAVSIM_LIGHT_CONTROLLER: the car's controller as the light program reads it. Numbers as JavaScript
 * prints them (the shortest text that reads back to the same double), so both programs steer
 * with the same values.
 */
export function lightControllerText(scenario: ResolvedScenario, v: ResolvedVehicle): string {
  const period = stepSchedule(scenario).controlPeriod(v);
  const head = `cavsim.light-car/1 ${scenario.physics.timestep} ${period}`;
  const c = v.controller;
  if (c.type === 'pure-pursuit') {
    const rows = c.waypoints.map((w) => `${w.x} ${w.y} ${w.speed}`);
    return [
      head,
      `pure-pursuit ${c.lookahead} ${c.lookaheadTolerance} ${c.gain} ${c.speedScale} ${v.params.s_max} ${rows.length}`,
      ...rows,
      ...v2vLines(scenario, v),
    ].join('\n');
  }
  if (c.type === 'lane-keeping') {
    const direction = c.direction === '+x' ? 1 : -1;
    const wheelbase = v.params.lf + v.params.lr;
    const line = `lane-keeping ${c.y} ${direction} ${c.speed} ${c.lookaheadTime} ${c.minLookahead} ${wheelbase} ${v.params.s_max}`;
    return [head, line, ...v2vLines(scenario, v)].join('\n');
  }
  if (c.type === 'open-loop') {
    const rows = c.schedule.map((s) => `${s.t} ${s.speed} ${s.steer}`);
    return [head, `open-loop ${rows.length}`, ...rows, ...v2vLines(scenario, v)].join('\n');
  }
  if (c.type === 'idle') return [`${head}\nidle`, ...v2vLines(scenario, v)].join('\n');
  throw new Error(`the light-car program has no ${c.type} controller`);
}

/**
 * `beacon RATE SIZE TO OFFSET` per beacon app, with the first beacon's offset in the period drawn
 * as the TypeScript app draws it; `v2v` when any car of the scenario beacons (a socket to send and
 * to report receipts on).
 */
function v2vLines(scenario: ResolvedScenario, v: ResolvedVehicle): string[] {
  const beacons = v.apps.filter(isBeacon).map((b) => {
    const offset = createRandom(deriveSeed(0, `beacon-${v.name}`))() * (1 / b.rate);
    return `beacon ${b.rate} ${b.size} ${b.to} ${offset}`;
  });
  return [...beacons, ...(scenario.vehicles.some((u) => u.apps.some(isBeacon)) ? ['v2v'] : [])];
}
