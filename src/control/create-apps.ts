import type { ResolvedVehicle } from '../scenario/resolved.js';
import type { VehicleApp } from './vehicle-context.js';
import { createPurePursuit } from './pure-pursuit.js';
import { createOpenLoop } from './open-loop.js';
import { createBrakeReceiver, createTtcBrakeSender } from './emergency-brake.js';

/** The controller first, then the V2V apps in scenario order; the same list runs in every runtime. */
export function createVehicleApps(v: ResolvedVehicle): VehicleApp[] {
  const apps: VehicleApp[] = [];
  const c = v.controller;
  if (c.type === 'pure-pursuit') apps.push(createPurePursuit({ ...c, maxSteer: v.params.s_max }));
  else if (c.type === 'open-loop') apps.push(createOpenLoop(c.schedule));
  for (const app of v.apps) {
    if (app.type === 'ttc-brake-sender') apps.push(createTtcBrakeSender(app));
    else if (app.type === 'brake-receiver') apps.push(createBrakeReceiver());
  }
  return apps;
}
