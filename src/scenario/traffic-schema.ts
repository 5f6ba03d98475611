import { VEHICLE_PRESET_NAMES } from '../core/physics/vehicle-presets.js';
import { z } from '../util/zod.js';
import { appSchema } from './app-schema.js';
import { density, frequency, length, speed } from './schema-quantities.js';
import { vehicleParamsSchema } from './vehicle-params-schema.js';

/**
 * The scenario's `traffic:` block: a straight road filled with cars at a density, for radio
 * density studies. Normalisation (traffic.ts) writes its cars into the vehicles, placed by
 * traffic-placement.ts; the rest of cavsim sees ordinary vehicles.
 */

/** The longest traffic road [m]: 802.11p reaches about a kilometre, so 20 km holds any study with room to spare. */
export const MAX_ROAD_LENGTH_M = 20_000;
export const TRAFFIC_NAME_PREFIX = /^[a-z]([a-z0-9]{0,7}[a-z])?$/;

export const trafficSchema = z
  .object({
    road: z
      .object({
        length: length('how long the road the cars stand on is (2km, 800m)', 10, MAX_ROAD_LENGTH_M),
        lanes: z.number().int().min(1).max(10).describe('lanes side by side, all driven towards +x'),
        laneWidth: length('width of each lane', 1, 10, '3.5m').default(3.5),
      })
      .strict()
      .describe(
        'the straight road along +x from x = 0, its lanes across y, centred on y = 0 (lane 0 at the lowest y); without `map:` the map is this road, generated',
      ),
    density: density(
      'vehicles per km of road, counted over all lanes together: 120/km on 3 lanes of 2 km is 240 cars, 80 in each lane',
      0.01,
      100_000,
    ),
    speed: speed("every car's speed along its lane (25m/s, 90km/h); 0: parked", 0, 150).default(0),
    speedSpread: speed(
      "each lane's speed is drawn (seeded) from speed ± this; a lane's cars share it, so none catches up with the car ahead",
      0,
      150,
      '3m/s',
    ).default(0),
    jitter: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe(
        "0: a lane's cars evenly spaced; up to 1: each moved along its lane (seeded) by up to this share of half the room its spacing leaves, so cars never come closer than 1 m",
      ),
    vehicle: z
      .enum(VEHICLE_PRESET_NAMES)
      .default('commonroad-bmw-320i')
      .describe("the cars' parameter set: CommonRoad's vehicles 1-3 (docs/physics.md) or f1tenth_gym's car"),
    params: vehicleParamsSchema.default({}).describe("changes to the set's parameters, over physics.params"),
    controlRate: frequency('how often the lane keeping and the apps run').default(100),
    apps: z.array(appSchema).default([]).describe('V2X apps on every car'),
    namePrefix: z
      .string()
      .regex(TRAFFIC_NAME_PREFIX, 'use 1-9 lowercase letters and digits, starting and ending with a letter, e.g. car')
      .default('car')
      .describe('the cars are named <namePrefix>0, <namePrefix>1, ... from the back of the road to its front'),
  })
  .strict();

export type TrafficParsed = z.output<typeof trafficSchema>;
