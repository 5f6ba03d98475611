import { createGapFollow } from '../core/control/gap-follow.js';
import { createLaneKeeping } from '../core/control/lane-keeping.js';
import { createOpenLoop } from '../core/control/open-loop.js';
import { createPurePursuit } from '../core/control/pure-pursuit.js';
import { createRrt } from '../core/control/rrt.js';
import type { VehicleApp } from '../core/control/vehicle-context.js';
import { createWallFollow } from '../core/control/wall-follow.js';
import type { OccupancyGrid } from '../core/map/occupancy-grid.js';
import type { BodySize } from '../core/physics/ttc.js';
import { wallMargin } from '../core/sensing/wall-returns.js';
import { createBeacon } from '../core/v2x/apps/beacon.js';
import { createCacc } from '../core/v2x/apps/cacc.js';
import { createDenm } from '../core/v2x/apps/denm-triggers.js';
import { createBrakeReceiver, createTtcBrakeSender } from '../core/v2x/apps/emergency-brake.js';
import { createScriptedEvent } from '../core/v2x/apps/scripted-event.js';
import { createWarning, createWarningReceiver } from '../core/v2x/apps/warning.js';
import { createCam } from '../core/v2x/facilities/ca-service.js';
import { createCpm } from '../core/v2x/facilities/cp-service.js';
import { DEFAULT_GEO_REFERENCE, type GeoReference } from '../core/v2x/networking/geo-reference.js';
import { stationIdOf } from '../core/v2x/networking/station-id.js';
import { type ResolvedScenario, type ResolvedVehicle, runsOwnCode } from '../scenario/resolved.js';

/** Every car's footprint by name: what the geometric TTC needs of the others (`bodySizes(scenario)`). */
export type BodySizes = ReadonlyMap<string, BodySize>;

export function bodySizes(scenario: Pick<ResolvedScenario, 'vehicles'>): BodySizes {
  return new Map(scenario.vehicles.map((v) => [v.name, { length: v.params.length, width: v.params.width }]));
}

/**
 * The controller first, then the V2V apps in scenario order; the same list runs in every runtime.
 * `sizes`: every car's footprint by name, for the geometric TTC (in every runtime the same, so a
 * small car and a truck close as they would, not as two copies of this car). `geoReference`:
 * the scenario's, for the positions CAMs carry. `grid`: the scenario's map, whose walls a `cpm`
 * app leaves out of its objects (without it, every cluster of the scan may be an object).
 */
export function createVehicleApps(
  v: ResolvedVehicle,
  sizes: BodySizes,
  geoReference: GeoReference = DEFAULT_GEO_REFERENCE,
  grid?: OccupancyGrid,
): VehicleApp[] {
  const apps: VehicleApp[] = [];
  const c = v.controller;
  const maxSteer = v.params.s_max;
  if (c.type === 'pure-pursuit') apps.push(createPurePursuit({ ...c, maxSteer }));
  else if (c.type === 'open-loop') apps.push(createOpenLoop(c.schedule));
  else if (c.type === 'lane-keeping')
    apps.push(createLaneKeeping({ ...c, direction: c.direction === '+x' ? 1 : -1, wheelbase: v.params.lf + v.params.lr, maxSteer }));
  else if (c.type === 'gap-follow') apps.push(createGapFollow({ ...c, maxSteer }));
  else if (c.type === 'wall-follow') apps.push(createWallFollow({ ...c, maxSteer }));
  else if (c.type === 'rrt') apps.push(createRrt({ ...c, maxSteer }));
  for (const app of v.apps) {
    if (app.type === 'ttc-brake-sender') apps.push(createTtcBrakeSender(app, { own: v.params, others: sizes }, geoReference));
    else if (app.type === 'brake-receiver') apps.push(createBrakeReceiver(geoReference));
    else if (app.type === 'beacon') apps.push(createBeacon(v.name, app));
    else if (app.type === 'cam')
      apps.push(
        createCam(
          v.name,
          app,
          { stationId: stationIdOf(v.name), stationType: PASSENGER_CAR, length: v.params.length, width: v.params.width },
          geoReference,
        ),
      );
    else if (app.type === 'cacc') apps.push(createCacc(app, v.params));
    else if (app.type === 'warning') apps.push(createWarning(app, { station: stationOf(v), geoReference }));
    else if (app.type === 'warning-receiver') apps.push(createWarningReceiver(app, geoReference));
    else if (app.type === 'denm') apps.push(createDenm(app, stationOf(v), geoReference, { own: v.params, others: sizes }));
    else if (app.type === 'cpm')
      apps.push(
        createCpm(v.name, app, stationOf(v), geoReference, grid && { grid, margin: wallMargin(grid.resolution, v.lidar?.noiseStd ?? 0) }),
      );
    else if (app.type === 'scripted-event')
      apps.push(createScriptedEvent(app.brake !== undefined ? { at: app.at, brake: app.brake } : { at: app.at, speed: app.speed! }));
  }
  return apps;
}

/** ITS station type of every car (StationType passengerCar). */
const PASSENGER_CAR = 5;

const stationOf = (v: ResolvedVehicle) => ({
  stationId: stationIdOf(v.name),
  stationType: PASSENGER_CAR,
  length: v.params.length,
  width: v.params.width,
});

/** Whether a car's apps look at the map (`createVehicleApps`' `grid`): a runtime loads it only for them. */
export const appsNeedMap = (v: Pick<ResolvedVehicle, 'apps'>): boolean => v.apps.some((app) => app.type === 'cpm');

/** Apps whose behaviour no received message changes: they only send (or act on a clock). */
const DEAF_APPS: ReadonlySet<string> = new Set(['beacon', 'cam', 'cpm', 'scripted-event']);

/**
 * Whether anything a vehicle does can depend on the V2V messages it receives: its own code, or an
 * app that reads them or its neighbour table. The controllers never do.
 */
export const actsOnReceivedMessages = (v: Pick<ResolvedVehicle, 'apps' | 'command' | 'image' | 'external'>): boolean =>
  runsOwnCode(v) || v.apps.some((app) => !DEAF_APPS.has(app.type));
