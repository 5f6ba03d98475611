import { DEFAULT_GEO_REFERENCE } from '../core/v2x/networking/geo-reference.js';
import { z } from '../util/zod.js';
import { appSchema } from './app-schema.js';
import { controllerSchema } from './controller-schema.js';
import { byteSize, dataRate, decibels, duration, finite, frequency, power, receivedPower } from './schema-quantities.js';
import { trafficSchema } from './traffic-schema.js';
import { MAX_VEHICLES } from './vehicle-limit.js';
import { vehicleParamsSchema } from './vehicle-params-schema.js';

export { vehicleParamsSchema } from './vehicle-params-schema.js';

/**
 * Step 1 of 3 of scenario validation: the shape of a scenario file, with units parsed into SI.
 * Step 2 (normalise.ts) fills defaults and resolves files; step 3 (cross-checks.ts) relates fields.
 * The field builders are in schema-quantities.ts, the controller blocks in controller-schema.ts and
 * the V2X apps in app-schema.ts.
 */

/** 802.11p's OFDM rates on a 10 MHz channel [bit/s]. */
export const WIFI_80211P_RATES = [3e6, 4.5e6, 6e6, 9e6, 12e6, 18e6, 24e6, 27e6];
export const PROPAGATION_MODELS = ['log-distance', 'friis', 'two-ray', '3gpp-v2v-urban', '3gpp-v2v-highway', 'winner-b1'] as const;

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
    map: z
      .string()
      .min(1)
      .optional()
      .describe('map_server YAML file, relative to the scenario file; may be left out with `traffic:`, whose road is then the map'),
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
          .enum(['csma', 'latency', 'wifi-80211p', 'lte-v2x', 'nr-v2x'])
          .default('csma')
          .describe(
            "csma: one shared bus that the delay also holds (as ns-3 CSMA); latency: delay without a capacity limit; wifi-80211p: ns-3 802.11p radio driven by the cars' positions; lte-v2x: LTE-V2X Mode 4 sidelink with sensing-based semi-persistent scheduling; nr-v2x: NR-V2X Mode 2 sidelink, semi-persistent or dynamic scheduling (both builtin engine only)",
          ),
        engine: z
          .enum(['builtin', 'ns3'])
          .optional()
          .describe(
            'simulated runtime: ns3 (ns-3 in lock-step, the default when ns-3 is installed) or builtin (in-process model of csma, latency, wifi-80211p, lte-v2x and nr-v2x; lte-v2x and nr-v2x have only this one)',
          ),
        delay: duration(
          'csma, latency: one-way channel delay (default 10ms); wifi-80211p: an access/processing delay added on top of the radio (builtin engine)',
          0,
          10,
        ).optional(),
        jitter: duration('latency: extra delay per frame and receiver, uniform in [0, jitter]', 0, 10).optional(),
        dataRate: dataRate('csma, latency: channel data rate (csma: of the bus; latency: of each sender) (default 100Mbps)').optional(),
        loss: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe(
            "csma, latency: probability a frame is lost, per receiver (default 0); wifi-80211p: added on top of the radio's own losses (builtin engine)",
          ),
        txPower: power('wifi-80211p, lte-v2x, nr-v2x: transmit power (default 20dBm; nr-v2x: 23dBm)').optional(),
        propagation: z
          .enum(PROPAGATION_MODELS)
          .optional()
          .describe(
            'wifi-80211p, lte-v2x, nr-v2x: path-loss model (default log-distance; lte-v2x, nr-v2x: winner-b1); winner-b1: WINNER+ B1 line of sight with a free-space floor',
          ),
        shadowing: decibels(
          'wifi-80211p, lte-v2x, nr-v2x: log-normal shadowing standard deviation, decorrelated over 25 m (default 0dB: none; lte-v2x, nr-v2x: 3dB)',
        ).optional(),
        noiseFloor: receivedPower(
          'wifi-80211p, lte-v2x, nr-v2x: receiver noise in the channel, 10 MHz (nr-v2x: 20 MHz) (default: thermal noise plus noiseFigure, -97dBm; lte-v2x: -95dBm; nr-v2x: -92dBm)',
        ).optional(),
        csThreshold: receivedPower(
          "wifi-80211p: carrier-sense threshold: a frame received at least this strong is detected and keeps the medium busy (default ns-3's: detection from -82dBm, busy from -85dBm)",
        ).optional(),
        obstacles: z
          .enum(['map', 'none'])
          .optional()
          .describe("wifi-80211p, lte-v2x, nr-v2x: map (the map's walls block line of sight) or none (default map)"),
        antennaHeight: finite('wifi-80211p, lte-v2x, nr-v2x: antenna height above the ground [m] (default 1.5)')
          .min(0.05)
          .max(50)
          .optional(),
        noiseFigure: decibels('wifi-80211p, lte-v2x, nr-v2x: receiver noise figure (default 7dB; lte-v2x, nr-v2x: 9dB)').optional(),
        rate: dataRate('wifi-80211p: PHY rate, one of 3, 4.5, 6, 9, 12, 18, 24, 27 Mbps (default 6Mbps)').optional(),
        subchannels: z
          .number()
          .int()
          .min(1)
          .max(10)
          .optional()
          .describe('lte-v2x: subchannels the 10 MHz channel (50 resource blocks) is split into, 1-10 (default 4)'),
        rri: duration(
          'lte-v2x, nr-v2x: resource reservation interval, 20ms, 50ms (nr-v2x: 1-99ms) or a multiple of 100ms up to 1s; also the packet delay budget, at most 100ms (default 100ms)',
          0.001,
          1,
        ).optional(),
        mcs: z
          .number()
          .int()
          .min(0)
          .max(28)
          .optional()
          .describe(
            'lte-v2x, nr-v2x: PSSCH modulation and coding scheme index, lte-v2x 0-20 (default 9: QPSK, 190 bytes in one 12-block subchannel), nr-v2x 0-28 of the 64QAM table (default 14: 16QAM, 194 bytes in one 10-block subchannel)',
          ),
        keepProbability: z
          .number()
          .min(0)
          .max(0.8)
          .optional()
          .describe('lte-v2x, nr-v2x: probability of keeping the reservation when its reselection counter runs out, 0-0.8 (default 0)'),
        numerology: z
          .number()
          .int()
          .min(0)
          .max(2)
          .optional()
          .describe(
            'nr-v2x: numerology mu: slots of 1ms/2^mu, subcarriers of 15x2^mu kHz, 0-2 (default 1: 0.5ms slots, 30 kHz, 51 resource blocks in 20 MHz)',
          ),
        subchannelSize: z
          .number()
          .int()
          .optional()
          .describe("nr-v2x: resource blocks per subchannel, one of 10, 12, 15, 20, 25, 50, 75, 100, at most the channel's (default 10)"),
        scheduling: z
          .enum(['sps', 'dynamic'])
          .optional()
          .describe(
            'nr-v2x: sps (sensing-based semi-persistent reservations every rri) or dynamic (a new resource for every packet) (default sps)',
          ),
        retransmissions: z
          .number()
          .int()
          .min(0)
          .max(2)
          .optional()
          .describe('nr-v2x: blind retransmissions of every packet, each on its own resource within the delay budget, 0-2 (default 0)'),
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
      .max(MAX_VEHICLES)
      .default([])
      .describe(`the cars, each written out; with traffic's cars 1 to ${MAX_VEHICLES} in all`),
    traffic: trafficSchema
      .optional()
      .describe('cars generated on a straight road at a density (docs/density-studies.md); they join the vehicles'),
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
            'write run.mcap, the run as ROS 2 messages for Foxglove and rosbag2 (docs/foxglove.md); default: yes for `cavsim up`, no for the runs of a sweep and for simulated runs without v2v.csv (record.v2v)',
          ),
        v2v: z
          .boolean()
          .optional()
          .describe(
            'simulated runtime: write v2v.csv, one row per frame and receiver (and its per-pair figures); false counts the outcomes by distance instead (delivery-distance.csv; docs/run-folder.md, "Fleet runs"); default: yes up to 100 cars, no above',
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
