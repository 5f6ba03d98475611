import { z } from '../util/zod.js';
import { duration, finite, frequency } from './schema-quantities.js';

/**
 * The scenario schema's `controller` blocks: pure pursuit, open loop, idle, lane keeping on a
 * straight lane, and the scan-driven gap-follow, wall-follow and RRT.
 */

const waypointSchema = z.object({ x: finite('x [m]'), y: finite('y [m]'), speed: finite('target speed [m/s]') }).strict();
const commandStepSchema = z
  .object({ t: duration('time from start'), speed: finite('speed command [m/s]'), steer: finite('steering angle command [rad]') })
  .strict();

const pursuitSchema = z
  .object({
    type: z.literal('pure-pursuit'),
    waypoints: z.union([z.string().min(1), z.array(waypointSchema).min(2)]).describe('CSV file (x,y,speed) or inline list'),
    lookahead: finite('look-ahead distance L [m]').positive().max(50).default(1.5),
    lookaheadTolerance: finite('half-width a of the look-ahead ring [m]').nonnegative().max(10).default(0.5),
    gain: finite('P gain from curvature to steering angle').positive().max(10).default(0.3),
    speedScale: finite('multiplier on waypoint speeds').positive().max(5).default(1),
    loop: z.boolean().default(false).describe('waypoints form a closed loop'),
  })
  .strict();

const openLoopSchema = z
  .object({
    type: z.literal('open-loop'),
    schedule: z.union([z.string().min(1), z.array(commandStepSchema).min(1)]).describe('CSV file (t,speed,steer) or inline list'),
  })
  .strict();

const idleSchema = z.object({ type: z.literal('idle') }).strict();

export const laneKeepingSchema = z
  .object({
    type: z.literal('lane-keeping'),
    y: finite("the lane's centre line: the line y = this in the map frame [m]"),
    direction: z.enum(['+x', '-x']).default('+x').describe('the way the lane is driven along x'),
    speed: finite('speed to keep [m/s]').nonnegative().max(150),
    lookaheadTime: duration("the goal point on the centre line lies this far ahead at the car's speed", 0.05, 10).default(1),
    minLookahead: finite('the goal point lies at least this far ahead [m]').positive().max(100).default(5),
  })
  .strict();

const speedBySteerFields = {
  speed: finite('speed when driving straight [m/s]').positive().max(20).default(3),
  cornerSpeed: finite('speed at full steering lock [m/s]; interpolated linearly in |steer|').positive().max(20).default(1.5),
};

const gapFollowSchema = z
  .object({
    type: z.literal('gap-follow'),
    bubbleRadius: finite('radius of the bubble blanked out around the closest obstacle [m]').positive().max(5).default(0.6),
    fov: finite('field of view searched for gaps, centred ahead [rad]')
      .positive()
      .max(2 * Math.PI)
      .default(Math.PI),
    clipRange: finite('ranges are clipped to this before choosing the best point [m]').positive().max(100).default(4),
    freeRange: finite('a beam longer than this is free, part of a gap [m]').positive().max(100).default(1.2),
    smoothing: z.number().int().min(1).max(101).default(5).describe('moving-average window over beams'),
    gain: finite('multiplier from the best point bearing to the steering angle').positive().max(5).default(1),
    ...speedBySteerFields,
  })
  .strict();

const wallFollowSchema = z
  .object({
    type: z.literal('wall-follow'),
    side: z.enum(['left', 'right']).default('left').describe('the wall to follow'),
    distance: finite('wanted distance to the wall [m]').positive().max(20).default(1.5),
    beamAngle: finite('angle between beam b (perpendicular to the car) and beam a, towards the front [rad]')
      .positive()
      .max(1.4)
      .default(0.8),
    lookahead: finite('distance ahead at which the error is projected [m]').nonnegative().max(10).default(1),
    kp: finite('proportional gain [rad/m]').nonnegative().max(100).default(1),
    ki: finite('integral gain [rad/(m s)]').nonnegative().max(100).default(0),
    kd: finite('derivative gain [rad s/m]').nonnegative().max(100).default(0.1),
    ...speedBySteerFields,
  })
  .strict();

const rrtSchema = z
  .object({
    type: z.literal('rrt'),
    waypoints: z.union([z.string().min(1), z.array(waypointSchema).min(2)]).describe('global path: CSV file (x,y,speed) or inline list'),
    loop: z.boolean().default(false).describe('waypoints form a closed loop'),
    goalDistance: finite('how far ahead on the global path the goal point is [m]').positive().max(30).default(3),
    localSize: finite('side of the square local occupancy grid built from the scan [m]').positive().max(30).default(8),
    localResolution: finite('cell size of the local grid [m]').positive().max(1).default(0.1),
    inflation: finite('obstacles in the local grid are grown by this [m]').nonnegative().max(2).default(0.3),
    maxIterations: z.number().int().min(10).max(100000).default(400).describe('samples per plan'),
    step: finite('longest edge of the tree [m]').positive().max(5).default(0.4),
    goalTolerance: finite('a node this close to the goal ends the search [m]').positive().max(5).default(0.4),
    goalBias: z.number().min(0).max(1).default(0.15).describe('probability a sample is the goal itself'),
    planRate: frequency('how often the path is planned again').default(20),
    lookahead: finite('pure-pursuit look-ahead on the planned path [m]').positive().max(20).default(1.2),
    lookaheadTolerance: finite('half-width of the look-ahead ring [m]').nonnegative().max(10).default(0.4),
    gain: finite('P gain from curvature to steering angle').positive().max(10).default(0.5),
    speedScale: finite('multiplier on waypoint speeds').positive().max(5).default(1),
  })
  .strict();

export const controllerSchema = z.discriminatedUnion('type', [
  pursuitSchema,
  openLoopSchema,
  idleSchema,
  laneKeepingSchema,
  gapFollowSchema,
  wallFollowSchema,
  rrtSchema,
]);
