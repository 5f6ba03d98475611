import { PARAM_RANGES, type RangedParam, rangeMessage } from '../core/physics/parameter-ranges.js';
import { DENM_EVENTS, type DenmEvent, TRAFFIC_DIRECTIONS } from '../core/v2x/facilities/denm-events.js';
import { DEFAULT_GEO_REFERENCE } from '../core/v2x/networking/geo-reference.js';
import { z } from '../util/zod.js';
import {
  type ParseResult,
  parseByteSize,
  parseDataRate,
  parseDecibels,
  parseDuration,
  parseFrequency,
  parsePayloadSize,
  parsePower,
} from './units.js';
import { MAX_VEHICLES } from './vehicle-limit.js';

/**
 * Step 1 of 3 of scenario validation: the shape of a scenario file, with units parsed into SI.
 * Step 2 (normalise.ts) fills defaults and resolves files; step 3 (cross-checks.ts) relates fields.
 */

function quantity(
  parse: (v: unknown) => ParseResult,
  example: string,
  description: string,
  min: number,
  max: number,
  show: (v: number) => string,
) {
  return z
    .union([z.string(), z.number()])
    .meta({ description, examples: [example] })
    .transform((input, ctx) => {
      const parsed = parse(input);
      if (!parsed.ok) {
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      }
      if (parsed.value < min || parsed.value > max) {
        ctx.addIssue({ code: 'custom', message: `${input} is out of range; use a value from ${show(min)} to ${show(max)}` });
        return z.NEVER;
      }
      return parsed.value;
    });
}

const showSeconds = (s: number) => (s < 1 ? `${+(s * 1000).toFixed(3)}ms` : `${s}s`);
export const duration = (description: string, min = 0, max = 3600) => quantity(parseDuration, '10ms', description, min, max, showSeconds);
const dataRate = (description: string) => quantity(parseDataRate, '100Mbps', description, 1e3, 1e11, (v) => `${v / 1e6}Mbps`);
const frequency = (description: string) => quantity(parseFrequency, '100Hz', description, 0.1, 1000, (v) => `${v}Hz`);
const byteSize = (description: string) =>
  quantity(parseByteSize, '256m', description, 16 * 1024 ** 2, 64 * 1024 ** 3, (v) => `${Math.round(v / 1024 ** 2)}m`);

const payloadSize = (description: string) => quantity(parsePayloadSize, '300B', description, 1, 65507, (v) => `${v}B`);
const power = (description: string) => quantity(parsePower, '20dBm', description, -30, 40, (v) => `${v}dBm`);
const decibels = (description: string) => quantity(parseDecibels, '7dB', description, 0, 30, (v) => `${v}dB`);

/** 802.11p's OFDM rates on a 10 MHz channel [bit/s]. */
export const WIFI_80211P_RATES = [3e6, 4.5e6, 6e6, 9e6, 12e6, 18e6, 24e6, 27e6];
export const PROPAGATION_MODELS = ['log-distance', 'friis', 'two-ray', '3gpp-v2v-urban', '3gpp-v2v-highway'] as const;

const finite = (description: string) => z.number().finite().describe(description);

const ranged = (param: RangedParam, description: string) => {
  const error = (issue: { input?: unknown }) => `${issue.input} ${rangeMessage(param)}`;
  return finite(description).min(PARAM_RANGES[param].min, { error }).max(PARAM_RANGES[param].max, { error });
};

/**
 * Every f1tenth_gym vehicle parameter may be overridden; all optional here. Ranges are those of
 * real cars (PARAM_RANGES); relations between parameters and the physics step are cross-checked.
 */
export const vehicleParamsSchema = z
  .object({
    mu: finite('surface friction coefficient').positive().max(5),
    C_Sf: ranged('C_Sf', 'front cornering stiffness [1/rad]'),
    C_Sr: ranged('C_Sr', 'rear cornering stiffness [1/rad]'),
    lf: ranged('lf', 'centre of gravity to front axle [m]'),
    lr: ranged('lr', 'centre of gravity to rear axle [m]'),
    h: finite('height of centre of gravity [m]').nonnegative().max(5),
    m: ranged('m', 'mass [kg]'),
    I: finite('moment of inertia about z [kg m^2]').positive(),
    s_min: ranged('s_min', 'minimum steering angle [rad]'),
    s_max: ranged('s_max', 'maximum steering angle [rad]'),
    sv_min: finite('minimum steering velocity [rad/s]').max(0),
    sv_max: finite('maximum steering velocity [rad/s]').min(0),
    v_switch: finite('switching velocity [m/s]').positive(),
    a_max: finite('maximum longitudinal acceleration [m/s^2]').positive().max(100),
    v_min: ranged('v_min', 'minimum velocity [m/s]').negative('must be below 0 (the speed controller divides by it); e.g. -5'),
    v_max: finite('maximum velocity [m/s]').positive().max(150),
    width: finite('footprint width [m]').positive().max(10),
    length: finite('footprint length [m]').positive().max(30),
  })
  .partial()
  .strict();

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
  gapFollowSchema,
  wallFollowSchema,
  rrtSchema,
]);

/** Defaults are f1tenth_gym's scan simulator; rate: one scan per default 10 ms physics step, as the gym observes. */
export const lidarSchema = z
  .object({
    enabled: z.boolean().default(true).describe('false turns the lidar off'),
    rate: frequency('scans per second').default(100),
    beams: z.number().int().min(2).max(100000).default(1080).describe('rays per scan'),
    fov: finite('field of view, centred on the heading [rad]')
      .positive()
      .max(2 * Math.PI)
      .default(4.7),
    rangeMax: finite('maximum range [m]').positive().max(1000).default(30),
    noiseStd: finite('standard deviation of the Gaussian range noise [m]').nonnegative().max(10).default(0.01),
  })
  .strict();

const brakeSenderSchema = z
  .object({
    type: z.literal('ttc-brake-sender'),
    threshold: duration('send the brake message when TTC falls below this', 0.001, 60).default(0.7),
    to: z.string().default('*').describe('vehicle name, or * for broadcast'),
    brakeSelf: z.boolean().default(true).describe('the sender brakes too, not only the cars it warns'),
    source: z
      .enum(['infrastructure', 'neighbours'])
      .default('infrastructure')
      .describe('where the other cars are known from: the observed cars (ideal) or their beacons'),
    maxAge: duration('with source: neighbours, ignore a car whose last beacon is older than this', 0.001, 60).default(1),
    ttc: z
      .enum(['geometric', 'centre-distance'])
      .default('geometric')
      .describe(
        "geometric: time until the two cars' footprints (length x width) overlap at their current velocities (cars passing in other lanes never do); centre-distance: the thesis's Eq. 3.7, centre distance over closing speed, blind to size and lanes",
      ),
    perceived: z
      .boolean()
      .optional()
      .describe("also watch the objects other cars' CPMs report (their lidars' perceived objects, carried forward to now); default false"),
    perceivedMaxAge: duration(
      'with perceived: ignore an object measured longer ago than this (default 1.1 s: T_GenCpmMax and a little)',
      0.001,
      60,
    ).optional(),
  })
  .strict();
const brakeReceiverSchema = z.object({ type: z.literal('brake-receiver') }).strict();
const beaconSchema = z
  .object({
    type: z.literal('beacon'),
    rate: frequency('beacons per second').default(10),
    size: payloadSize('payload bytes per beacon (the state is padded to this)').default(300),
    to: z.string().default('*').describe('vehicle name, or * for broadcast'),
  })
  .strict();
const scriptedEventSchema = z
  .object({
    type: z.literal('scripted-event'),
    at: duration('when the event happens, from the start of the run', 0, 3600),
    brake: finite('brake to a stop at this deceleration [m/s^2]').positive().max(20).optional(),
    speed: finite('change the speed to this [m/s]').nonnegative().max(20).optional(),
  })
  .strict()
  .refine((e) => (e.brake === undefined) !== (e.speed === undefined), {
    message: 'give exactly one of brake (a deceleration in m/s^2) or speed (m/s)',
  });
const caccSchema = z
  .object({
    type: z.literal('cacc'),
    predecessor: z.string().describe('the car ahead, whose beacons or CAMs and gap this car follows'),
    leader: z.string().optional().describe("the platoon's leader, whose beaconed acceleration is fed forward too"),
    leaderWeight: finite("weight of the leader's acceleration in the feed-forward").nonnegative().max(1).default(0),
    timeGap: duration('time gap kept to the predecessor, on top of standstill', 0, 5).default(0.6),
    standstill: finite('gap kept at a standstill [m]').nonnegative().max(50).default(2),
    kp: finite('gain on the gap error [1/s^2]').nonnegative().max(10).default(0.5),
    kd: finite('gain on the rate of the gap error [1/s]').nonnegative().max(10).default(1),
    maxAge: duration(
      'older beacons or CAMs carry no acceleration: plain ACC on the gap alone (default: 0.5 s from a beaconing predecessor, T_GenCamMax + T_CheckCamGen + 0.1 s from one sending only CAMs)',
      0.001,
      60,
    ).optional(),
    gap: z
      .enum(['lidar', 'geometric'])
      .default('geometric')
      .describe("the gap from the lidar beams straight ahead, or from the predecessor's beaconed position"),
  })
  .strict();
const warningSchema = z
  .object({
    type: z.literal('warning'),
    at: duration('start warning at this time', 0, 3600).optional(),
    deceleration: finite('or start when the car decelerates harder than this [m/s^2]').positive().max(20).optional(),
    every: duration('repeat the warning this often', 0.001, 60).default(0.1),
    for: duration('keep repeating it this long', 0, 3600).default(1),
    to: z.string().default('*').describe('vehicle name, or * for broadcast'),
    event: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,31}$/, 'use lowercase letters, digits and dashes, e.g. hard-braking')
      .default('hard-braking')
      .describe('the event name the warning carries'),
    format: z
      .enum(['json', 'denm'])
      .default('json')
      .describe(
        `json: cavsim's own JSON message; denm: an ETSI DENM (EN 302 637-3) with the event's cause code, geo-broadcast (the event: one of ${DENM_EVENTS.join(', ')})`,
      ),
  })
  .strict()
  .refine((w) => (w.at === undefined) !== (w.deceleration === undefined), {
    message: 'give exactly one of at (a time) or deceleration (m/s^2) to say when the warning starts',
  })
  .refine((w) => w.format !== 'denm' || (DENM_EVENTS as readonly string[]).includes(w.event), {
    message: `format: denm needs an event with a DENM cause code: ${DENM_EVENTS.join(', ')}`,
    path: ['event'],
  })
  .refine((w) => w.format !== 'denm' || w.to === '*', {
    message: 'format: denm is broadcast (geo-broadcast to the area around the event): leave out to',
    path: ['to'],
  });
const warningReceiverSchema = z
  .object({
    type: z.literal('warning-receiver'),
    react: z.enum(['brake', 'slow']).default('brake').describe('brake: an emergency stop; slow: change the speed to `speed`'),
    speed: finite('with react: slow, the speed to slow to [m/s]').nonnegative().max(20).optional(),
    events: z
      .array(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'use lowercase letters, digits and dashes, e.g. hard-braking'))
      .min(1)
      .optional()
      .describe(`react only to warnings of these events (a DENM's event by its cause code: ${DENM_EVENTS.join(', ')}); default: any`),
  })
  .strict()
  .refine((r) => r.react !== 'slow' || r.speed !== undefined, { message: 'react: slow needs speed (m/s), the speed to slow to' });
const denmSchema = z
  .object({
    type: z.literal('denm'),
    on: z
      .enum(DENM_EVENTS as unknown as [DenmEvent, ...DenmEvent[]])
      .describe(
        'the event that triggers the DENM: hard-braking (99/1), emergency-brake (99/5), collision-risk (97/1), stationary (94/0); docs/v2x-messages.md',
      ),
    deceleration: finite('hard-braking: decelerating harder than this [m/s^2]').positive().max(20).default(4),
    ttc: duration('collision-risk: a TTC to another car below this', 0.001, 60).default(2),
    source: z
      .enum(['infrastructure', 'neighbours'])
      .default('infrastructure')
      .describe('collision-risk: where the other cars are known from: the observed cars (ideal) or their beacons and CAMs'),
    maxAge: duration('collision-risk with source: neighbours: ignore a car heard of longer ago than this', 0.001, 60).default(1),
    ttcMethod: z
      .enum(['geometric', 'centre-distance'])
      .default('geometric')
      .describe("collision-risk: how the TTC is computed (as ttc-brake-sender's ttc)"),
    perceived: z
      .boolean()
      .optional()
      .describe("collision-risk: also the objects other cars' CPMs report (as ttc-brake-sender's perceived); default false"),
    perceivedMaxAge: duration(
      'collision-risk with perceived: ignore an object measured longer ago than this (default 1.1 s)',
      0.001,
      60,
    ).optional(),
    stationaryAfter: duration('stationary: standing still this long', 0, 3600).default(1),
    validity: duration('validityDuration, from the detection (default by event: 2s, stationary 60s)', 0, 86400).optional(),
    repetitionInterval: duration(
      'repeat each DENM this often; also its transmissionInterval (default 100ms, stationary 1s)',
      0.001,
      10,
    ).optional(),
    repetitionDuration: duration('repeat each new, updated or cancelling DENM this long (default: the validity)', 0, 86400).optional(),
    updateInterval: duration(
      'while the event lasts, send an update (new detection time and position) this often (default: none)',
      0.001,
      3600,
    ).optional(),
    cancel: z
      .boolean()
      .default(true)
      .describe('send a cancellation (termination: isCancellation) when the event ends; false: the DENM runs out'),
    relevanceDistance: finite('the relevance distance [m]: the geo-broadcast circle around the event (default 200, stationary 500)')
      .positive()
      .max(65535)
      .optional(),
    trafficDirection: z
      .enum(Object.keys(TRAFFIC_DIRECTIONS) as [keyof typeof TRAFFIC_DIRECTIONS, ...(keyof typeof TRAFFIC_DIRECTIONS)[]])
      .optional()
      .describe('relevanceTrafficDirection: the traffic the event concerns (default upstream for braking, else all)'),
    scope: z
      .enum(['geo-broadcast', 'topological'])
      .default('geo-broadcast')
      .describe('GeoNetworking transport: geo-broadcast to the relevance circle, or topologically-scoped broadcast'),
    hops: z.number().int().min(1).max(255).default(10).describe('GeoNetworking maximum hop limit'),
  })
  .strict()
  .refine(
    (d) =>
      d.repetitionDuration === undefined ||
      d.repetitionInterval === undefined ||
      d.repetitionDuration === 0 ||
      d.repetitionInterval <= d.repetitionDuration,
    { message: 'repetitionInterval must not exceed repetitionDuration', path: ['repetitionInterval'] },
  );
const camSchema = z
  .object({
    type: z.literal('cam'),
    rate: frequency('a fixed CAM rate instead of the generation rules (EN 302 637-2)').optional(),
    minInterval: duration('T_GenCamMin: the shortest time between two CAMs', 0.01, 10).default(0.1),
    maxInterval: duration('T_GenCamMax: the longest time between two CAMs', 0.01, 10).default(1),
    checkInterval: duration('T_CheckCamGen: how often the generation rules are checked (default T_GenCamMin)', 0.001, 10).optional(),
    nGenCam: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(3)
      .describe('N_GenCam: CAMs sent at a dynamics-shortened interval before it returns to T_GenCamMax'),
    lowFrequencyInterval: duration('the low-frequency container goes out at most this often', 0.01, 60).default(0.5),
  })
  .strict()
  .refine((c) => c.minInterval <= c.maxInterval, { message: 'minInterval (T_GenCamMin) must not exceed maxInterval (T_GenCamMax)' })
  .refine((c) => c.checkInterval === undefined || c.checkInterval <= c.minInterval, {
    message: 'checkInterval (T_CheckCamGen) must not exceed minInterval (T_GenCamMin)',
    path: ['checkInterval'],
  });
const cpmSchema = z
  .object({
    type: z.literal('cpm'),
    minInterval: duration(
      'T_GenCpmMin: how often the generation rules are checked, the shortest time between two CPMs (TS 103 324)',
      0.01,
      10,
    ).default(0.1),
    maxInterval: duration('T_GenCpmMax: the longest time between two CPMs', 0.01, 10).default(1),
    positionThreshold: finite('an object that moved more than this since it was last included goes in again [m]')
      .positive()
      .max(100)
      .default(4),
    speedThreshold: finite('an object whose speed changed more than this since it was last included goes in again [m/s]')
      .positive()
      .max(50)
      .default(0.5),
    objectInterval: duration('an object last included this long ago goes in again', 0.01, 10).default(1),
    sensorInformationInterval: duration(
      "T_AddSensorInformation: the sensor information container (the lidar's range and field of view) goes out at most this often",
      0.01,
      60,
    ).default(1),
    gap: finite('consecutive lidar hit points at most this far apart are one object [m]').positive().max(10).default(0.3),
    minPoints: z.number().int().min(1).max(1000).default(3).describe('a cluster of fewer hit points is noise, not an object'),
    maxExtent: finite('a cluster wider than this (first to last point) is a wall, not an object [m]').positive().max(100).default(1.5),
    associationDistance: finite('an object seen within this of where it was at the last check is the same object (nearest first) [m]')
      .positive()
      .max(100)
      .default(1.5),
  })
  .strict()
  .refine((c) => c.minInterval <= c.maxInterval, { message: 'minInterval (T_GenCpmMin) must not exceed maxInterval (T_GenCpmMax)' });
export const appSchema = z.discriminatedUnion('type', [
  camSchema,
  cpmSchema,
  brakeSenderSchema,
  brakeReceiverSchema,
  beaconSchema,
  scriptedEventSchema,
  caccSchema,
  warningSchema,
  warningReceiverSchema,
  denmSchema,
]);

/** Emulated runs: how late a step may be [s], and the share of steps allowed to be that late. */
export const TIMING_DEFAULTS = { maxStepLateness: 0.005, maxLateFraction: 0.01 };

export const VEHICLE_NAME = /^[a-z][a-z0-9]{0,11}$/;

/** How long a vehicle's computer takes to answer a control tick, in virtual time (simulated runtime). */
export const COMPUTE_DEFAULTS = { model: 'none' as const, scale: 1, fixed: 0, timeout: 10 };
const computeSchema = z
  .object({
    model: z
      .enum(['none', 'measured', 'fixed'])
      .default(COMPUTE_DEFAULTS.model)
      .describe('none: commands act at the next step; measured: after the time the code took (times scale); fixed: after `fixed`'),
    scale: finite('measured: multiply the measured time, e.g. 4 for a computer four times slower than this host')
      .positive()
      .max(1000)
      .default(COMPUTE_DEFAULTS.scale),
    fixed: duration('fixed: the compute time of every tick', 0, 10).default(COMPUTE_DEFAULTS.fixed),
    timeout: duration('own code: a tick not answered within this wall-clock time fails the run', 0.01, 600).default(
      COMPUTE_DEFAULTS.timeout,
    ),
  })
  .strict()
  .refine((c) => c.model !== 'fixed' || c.fixed > 0, {
    message: 'model: fixed needs fixed (e.g. 5ms), the compute time of every tick',
    path: ['fixed'],
  });

/** A vehicle whose controller (or body) is a device cavsim does not start: it connects to the run. */
export const EXTERNAL_DEFAULTS = { connectTimeout: 30, barrier: true };
/** role: body's gates (seconds): see docs/external-devices.md, "A physical car". */
export const BODY_GATE_DEFAULTS = { maxClockOffset: 0.02, maxPoseLag: 0.05, maxReportGap: 0.25 };
export const LISTEN_ADDRESS = /^(?<host>\d{1,3}(?:\.\d{1,3}){3}|localhost):(?<port>\d{1,5})$/;
const externalSchema = z
  .object({
    role: z
      .enum(['controller', 'body'])
      .describe(
        'controller: the device drives this virtual car (it gets its sensors, sends its drive commands); body: a physical car that reports its own pose and is mirrored in the world (emulated runtime)',
      ),
    listen: z
      .string()
      .regex(LISTEN_ADDRESS, 'write ADDRESS:PORT with an IPv4 address, e.g. 127.0.0.1:9091 or 0.0.0.0:9091 (port 0: a free one)')
      .optional()
      .describe('where cavsim listens for the device (ws://ADDRESS:PORT); left out: 127.0.0.1 on a free port, printed when the run starts'),
    connectTimeout: duration('how long cavsim waits for the device to connect and say ready before the run fails', 0.1, 3600).default(
      EXTERNAL_DEFAULTS.connectTimeout,
    ),
    from: z
      .ipv4("write the device's IPv4 address, e.g. 10.213.0.2")
      .optional()
      .describe("emulated runtime (required there): the device's address; only connections from it speak for this car"),
    v2v: z
      .object({
        interface: z
          .string()
          .regex(
            /^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/,
            'write the name of an interface on this host (1-15 characters), e.g. eth1 or enp3s0.42',
          )
          .describe("the host interface the device's V2V radio or NIC is on; joined to the run's channel"),
        mac: z
          .string()
          .regex(/^[0-9a-f][02468ace](:[0-9a-f]{2}){5}$/, "write the device's unicast MAC in lower case, e.g. 02:de:00:00:00:01")
          .describe("the MAC of the device's V2V interface (the other cars address it directly)"),
      })
      .strict()
      .optional()
      .describe(
        "emulated runtime: the device's V2V goes through the channel from this interface; the device uses the address the run prints",
      ),
    barrier: z
      .boolean()
      .default(EXTERNAL_DEFAULTS.barrier)
      .describe(
        'simulated runtime: true waits for the device at every tick (virtual time); false runs at real-time pace and takes the last command received, to show how much the result changes',
      ),
    maxClockOffset: duration(
      "role: body: the run is invalid when the device's clock is further than this from the simulator's, measured NTP-style during the run (default 20ms)",
      0,
      60,
    ).optional(),
    maxPoseLag: duration(
      "role: body: the run is invalid when the p99 of its pose reports' lag (arrival minus stamp, clock offset taken out) exceeds this (default 50ms)",
      0.001,
      60,
    ).optional(),
    maxReportGap: duration(
      'role: body: the run fails when no pose report arrives for this long after the start (default 250ms)',
      0.01,
      60,
    ).optional(),
  })
  .strict();

const vehicleSchema = z
  .object({
    name: z
      .string()
      .regex(VEHICLE_NAME, 'use 1-12 lowercase letters and digits starting with a letter, e.g. car0')
      .describe("the car's name: topics, logs and --set paths use it (vehicles.car0.start.speed)"),
    start: z
      .object({
        x: finite('x [m]'),
        y: finite('y [m]'),
        yaw: finite('heading [rad]').default(0),
        speed: finite('initial longitudinal speed [m/s]').default(0),
      })
      .strict()
      .describe('where and how the car starts, in the map frame'),
    params: vehicleParamsSchema.default({}).describe("this car's vehicle parameters, over physics.params (f1tenth_gym defaults)"),
    controlRate: frequency('how often the controller and apps run').default(100),
    observes: z.array(z.string()).default([]).describe('vehicles whose odometry the infrastructure gives this car'),
    controller: controllerSchema.default({ type: 'idle' }),
    lidar: lidarSchema.optional().describe('2-D lidar; on by default for controllers that need a scan'),
    apps: z.array(appSchema).default([]).describe('V2X apps on this car, run at its control rate'),
    image: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._/:-]{0,200}$/, 'use a Docker image reference such as my/vehicle:1')
      .optional()
      .describe('your own vehicle image (Docker), already on this machine'),
    command: z
      .array(z.string())
      .min(1, 'give the program and its arguments, e.g. [python3, -u, vehicle.py]')
      .optional()
      .describe('your own vehicle code (argv): run in `image` (or on this host by the simulated runtime when there is no image)'),
    compute: computeSchema.default(COMPUTE_DEFAULTS).describe("the time the vehicle's computer takes per control tick"),
    external: externalSchema
      .optional()
      .describe(
        "the car's controller (role: controller), or the car itself (role: body, a physical car), is a device cavsim does not start, which connects to the run (docs/external-devices.md)",
      ),
    resources: z
      .object({ cpus: finite('CPU share, e.g. 0.5').positive().max(64).optional(), memory: byteSize('memory limit, e.g. 256m').optional() })
      .strict()
      .default({})
      .describe('emulated runtime: Docker limits of the vehicle container'),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/, 'use letters, digits, - and _ (at most 64)')
      .describe("the scenario's name: figure titles and summaries use it"),
    description: z.string().optional().describe('free text for people; cavsim ignores it'),
    map: z.string().min(1).describe('map_server YAML file, relative to the scenario file'),
    duration: duration('how long the experiment runs', 0.01, 3600),
    seed: z
      .number()
      .int()
      .nonnegative()
      .default(1)
      .describe('seeds every random draw (sensor noise, channel loss, ns-3 run number): same seed, same run'),
    geoReference: z
      .object({
        lat: z.number().min(-89).max(89).describe('latitude [degrees]'),
        lon: z.number().min(-180).max(180).describe('longitude [degrees]'),
      })
      .strict()
      .default(DEFAULT_GEO_REFERENCE)
      .describe(
        "where the map's origin lies on Earth (WGS84): CAMs and GeoNetworking headers carry positions as latitude/longitude (default: Sophia Antipolis, 43.6163 N 7.0687 E)",
      ),
    physics: z
      .object({
        timestep: duration('physics step', 0.0001, 0.1).default(0.01),
        integrator: z.enum(['rk4', 'euler']).default('rk4').describe('integration of the single-track model, as f1tenth_gym'),
        params: vehicleParamsSchema.default({}).describe('vehicle parameters for every car (f1tenth_gym defaults when left out)'),
      })
      .strict()
      .default({ timestep: 0.01, integrator: 'rk4', params: {} })
      .describe('the physics every car shares'),
    network: z
      .object({
        channel: z
          .enum(['csma', 'latency', 'wifi-80211p'])
          .default('csma')
          .describe(
            "csma: one shared bus that the delay also holds (as ns-3 CSMA); latency: delay without a capacity limit; wifi-80211p: ns-3 802.11p radio driven by the cars' positions",
          ),
        engine: z
          .enum(['builtin', 'ns3'])
          .optional()
          .describe(
            'simulated runtime: ns3 (ns-3 in lock-step, the default when ns-3 is installed) or builtin (in-process model of csma and latency)',
          ),
        delay: duration('csma, latency: one-way channel delay (default 10ms)', 0, 10).optional(),
        jitter: duration('latency: extra delay per frame and receiver, uniform in [0, jitter]', 0, 10).optional(),
        dataRate: dataRate('csma, latency: channel data rate (csma: of the bus; latency: of each sender) (default 100Mbps)').optional(),
        loss: z.number().min(0).max(1).optional().describe('csma, latency: probability a frame is lost, per receiver (default 0)'),
        txPower: power('wifi-80211p: transmit power (default 20dBm)').optional(),
        propagation: z.enum(PROPAGATION_MODELS).optional().describe('wifi-80211p: path-loss model from ns-3 (default log-distance)'),
        obstacles: z
          .enum(['map', 'none'])
          .optional()
          .describe("wifi-80211p: map (the map's walls block line of sight) or none (default map)"),
        antennaHeight: finite('wifi-80211p: antenna height above the ground [m] (default 1.5)').min(0.05).max(50).optional(),
        noiseFigure: decibels('wifi-80211p: receiver noise figure (default 7dB)').optional(),
        rate: dataRate('wifi-80211p: PHY rate, one of 3, 4.5, 6, 9, 12, 18, 24, 27 Mbps (default 6Mbps)').optional(),
        script: z.string().optional().describe('your own ns-3 channel program (emulated runtime)'),
      })
      .strict()
      .default({ channel: 'csma' })
      .describe('the V2V channel between the cars'),
    timing: z
      .object({
        maxStepLateness: duration('a step later than this marks the run invalid', 0, 10).default(TIMING_DEFAULTS.maxStepLateness),
        maxLateFraction: z
          .number()
          .min(0)
          .max(1)
          .default(TIMING_DEFAULTS.maxLateFraction)
          .describe('share of late steps or commands above which the run is invalid'),
      })
      .strict()
      .default(TIMING_DEFAULTS)
      .describe('emulated runtime: when real-time lateness makes a run invalid'),
    vehicles: z
      .array(vehicleSchema)
      .min(1, 'a scenario needs at least one vehicle')
      .max(MAX_VEHICLES)
      .describe(`the cars, 1 to ${MAX_VEHICLES}`),
    record: z
      .object({
        scans: z
          .boolean()
          .default(false)
          .describe("write every lidar scan to scans.csv, for cavsim view's lidar layer (the cars need a lidar)"),
        mcap: z
          .boolean()
          .optional()
          .describe(
            'write run.mcap, the run as ROS 2 messages for Foxglove and rosbag2 (docs/foxglove.md); default: yes for `cavsim up`, no for the runs of a sweep',
          ),
      })
      .strict()
      .default({ scans: false })
      .describe('what a run writes beyond its standard CSVs'),
  })
  .strict();

export type ScenarioInput = z.input<typeof scenarioSchema>;
export type ScenarioParsed = z.output<typeof scenarioSchema>;
export type VehicleParsed = ScenarioParsed['vehicles'][number];
export type ControllerParsed = z.output<typeof controllerSchema>;
export type AppParsed = z.output<typeof appSchema>;
export type LidarParsed = z.output<typeof lidarSchema>;
export type ExternalParsed = z.output<typeof externalSchema>;
