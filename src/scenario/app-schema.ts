import { DENM_EVENTS, type DenmEvent, TRAFFIC_DIRECTIONS } from '../core/v2x/facilities/denm-events.js';
import { z } from '../util/zod.js';
import { duration, finite, frequency, payloadSize } from './schema-quantities.js';

/**
 * The scenario schema's `apps` blocks: the V2X apps a car runs (CAM, CPM, DENM, warnings, brake
 * messages, beacons, CACC, scripted events).
 */

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
const dcc = z
  .enum(['off', 'reactive'])
  .optional()
  .describe(
    "reactive: ETSI reactive congestion control (TS 102 687, Annex A): the car's channel busy ratio sets the least interval between its packets (state changes in events.csv, time per state in summary.json); needs network.channel: wifi-80211p and --runtime sim. Default off",
  );
const beaconSchema = z
  .object({
    type: z.literal('beacon'),
    rate: frequency('beacons per second').default(10),
    size: payloadSize('payload bytes per beacon (the state is padded to this)').default(300),
    to: z.string().default('*').describe('vehicle name, or * for broadcast'),
    dcc,
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
    dcc,
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
