import { runsOwnCode, type ResolvedVehicle } from '../scenario/resolved.js';
import type { VehicleApp } from './vehicle-context.js';
import { createPurePursuit } from './pure-pursuit.js';
import { createOpenLoop } from './open-loop.js';
import { createGapFollow } from './gap-follow.js';
import { createWallFollow } from './wall-follow.js';
import { createRrt } from './rrt.js';
import { createBrakeReceiver, createTtcBrakeSender } from './emergency-brake.js';
import { createBeacon } from './beacon.js';
import { createScriptedEvent } from './scripted-event.js';
import { createCacc } from './cacc.js';
import { createWarning, createWarningReceiver } from './warning.js';

/** The controller first, then the V2V apps in scenario order; the same list runs in every runtime. */
export function createVehicleApps(v: ResolvedVehicle): VehicleApp[] {
  const apps: VehicleApp[] = [];
  const c = v.controller;
  const maxSteer = v.params.s_max;
  if (c.type === 'pure-pursuit') apps.push(createPurePursuit({ ...c, maxSteer }));
  else if (c.type === 'open-loop') apps.push(createOpenLoop(c.schedule));
  else if (c.type === 'gap-follow') apps.push(createGapFollow({ ...c, maxSteer }));
  else if (c.type === 'wall-follow') apps.push(createWallFollow({ ...c, maxSteer }));
  else if (c.type === 'rrt') apps.push(createRrt({ ...c, maxSteer }));
  for (const app of v.apps) {
    if (app.type === 'ttc-brake-sender') apps.push(createTtcBrakeSender(app));
    else if (app.type === 'brake-receiver') apps.push(createBrakeReceiver());
    else if (app.type === 'beacon') apps.push(createBeacon(v.name, app));
    else if (app.type === 'cacc') apps.push(createCacc(app, v.params));
    else if (app.type === 'warning') apps.push(createWarning(app));
    else if (app.type === 'warning-receiver') apps.push(createWarningReceiver(app));
    else if (app.type === 'scripted-event') apps.push(createScriptedEvent(app.brake !== undefined ? { at: app.at, brake: app.brake } : { at: app.at, speed: app.speed! }));
  }
  return apps;
}

/** Apps whose behaviour no received message changes: they only send (or act on a clock). */
const DEAF_APPS: ReadonlySet<string> = new Set(['beacon', 'scripted-event']);

/**
 * Whether anything a vehicle does can depend on the V2V messages it receives: its own code, or an
 * app that reads them or its neighbour table. The controllers never do.
 */
export const actsOnReceivedMessages = (v: Pick<ResolvedVehicle, 'apps' | 'command' | 'image'>): boolean =>
  runsOwnCode(v) || v.apps.some((app) => !DEAF_APPS.has(app.type));
