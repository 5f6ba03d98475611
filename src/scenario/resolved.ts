import type { GapFollowOptions } from '../core/control/gap-follow.js';
import type { RrtOptions } from '../core/control/rrt.js';
import type { WallFollowOptions } from '../core/control/wall-follow.js';
import type { CommandStep, Waypoint } from '../core/control/waypoints.js';
import type { StraightRoad } from '../core/map/straight-road.js';
import type { VehicleParams } from '../core/physics/types.js';
import type { VehiclePresetName } from '../core/physics/vehicle-presets.js';
import type { GeoReference } from '../core/v2x/networking/geo-reference.js';
import type { AppParsed, PROPAGATION_MODELS } from './schema.js';

/** A scenario after all three validation steps: SI units, defaults filled, files read. Serialisable. */
export interface ResolvedScenario {
  name: string;
  description?: string;
  sourceFile: string;
  /** The map_server YAML; absent when the map is generated: the straight road of `traffic`. */
  mapFile?: string;
  duration: number;
  seed: number;
  /** Where the map's origin lies on Earth; absent in scenarios resolved before it existed (then DEFAULT_GEO_REFERENCE). */
  geoReference?: GeoReference;
  physics: { timestep: number; integrator: 'rk4' | 'euler' };
  network: ResolvedNetwork;
  timing: { maxStepLateness: number; maxLateFraction: number };
  vehicles: ResolvedVehicle[];
  /** Present when a traffic block generated some of the vehicles. */
  traffic?: ResolvedTraffic;
  /** Absent in scenarios resolved before it existed: nothing extra is recorded. */
  record?: { scans: boolean; mcap?: boolean; v2v?: boolean };
  /** Fields the chosen runtime ignores, located like errors; set when the runtime was given. */
  warnings?: string[];
}

/** A traffic block as resolved: its road and lanes, and which of the scenario's vehicles it wrote. */
export interface ResolvedTraffic {
  /** `runOut`: as far as the fastest lane drives in the run. */
  road: StraightRoad;
  density: number; // vehicles per km, over all lanes
  vehicle: VehiclePresetName;
  /** Each lane's speed [m/s], lane 0 first. */
  laneSpeeds: number[];
  namePrefix: string;
  /** The generated cars are vehicles[first] to vehicles[first + count - 1]. */
  first: number;
  count: number;
}

/** Delays in seconds, data rates in bit/s. `engine` is kept only when the scenario names it. */
export type ResolvedNetwork = (WiredNetwork | WifiNetwork | LteV2xNetwork | NrV2xNetwork) & { engine?: ChannelEngine; script?: string };
export type ChannelEngine = 'builtin' | 'ns3';
export type WiredNetwork = { delay: number; dataRate: number; loss: number } & (
  | { channel: 'csma' }
  | { channel: 'latency'; jitter: number }
);

/** The radio keys every wireless channel shares: power in dBm, noise figure and shadowing in dB, antenna height in m. */
export interface RadioKeys {
  txPower: number;
  propagation: PropagationModel;
  obstacles: 'map' | 'none';
  antennaHeight: number;
  noiseFigure: number;
  /** Log-normal shadowing standard deviation [dB]; 0 for none. */
  shadowing: number;
  /** Receiver noise in the channel's bandwidth [dBm]; when absent, thermal noise plus `noiseFigure`. */
  noiseFloor?: number;
}

/** ns-3's 802.11p: PHY rate in bit/s. */
export interface WifiNetwork extends RadioKeys {
  channel: 'wifi-80211p';
  rate: number;
  /** Carrier-sense threshold [dBm]: a frame this strong is detected and keeps the medium busy; absent: ns-3's (detection -82, busy -85). */
  csThreshold?: number;
  /** Added on top of the radio's own (builtin engine): an access/processing delay on every delivery [s]; present only when given. */
  delay?: number;
  /** Added on top of the radio's own losses (builtin engine): probability a delivered frame is lost, per receiver; present only when given. */
  loss?: number;
}
export type PropagationModel = (typeof PROPAGATION_MODELS)[number];

/**
 * LTE-V2X Mode 4 sidelink (docs/sidelink.md): the radio's propagation keys, and its resource pool and
 * sensing-based semi-persistent scheduling. Power in dBm, noise figure in dB, `rri` in s.
 */
export interface LteV2xNetwork extends RadioKeys {
  channel: 'lte-v2x';
  /** Subchannels the 50 resource blocks of the 10 MHz channel are split into. */
  subchannels: number;
  /** Resource reservation interval [s]: how often a reservation recurs; also the packet delay budget. */
  rri: number;
  /** PSSCH modulation and coding scheme index (TS 36.213 Table 8.6.1-1), 0-20. */
  mcs: number;
  /** Probability of keeping the reservation when its reselection counter runs out (TS 36.321 5.14.1.1 probResourceKeep). */
  keepProbability: number;
}

/**
 * NR-V2X Mode 2 sidelink (docs/sidelink.md): the radio's propagation keys, a 20 MHz pool of slots by
 * numerology, sensing-based semi-persistent or dynamic scheduling, blind retransmissions.
 */
export interface NrV2xNetwork extends RadioKeys {
  channel: 'nr-v2x';
  /** mu: slots of 1 ms / 2^mu, subcarriers 15 x 2^mu kHz (TS 38.211 4.2), 0-2. */
  numerology: number;
  /** Resource blocks per subchannel (TS 38.331 sl-SubchannelSize). */
  subchannelSize: number;
  /** Resource reservation interval [s]; also the packet delay budget, at most 100 ms. */
  rri: number;
  /** PSSCH MCS index of TS 38.214 Table 5.1.3.1-1, 0-28. */
  mcs: number;
  keepProbability: number;
  scheduling: 'sps' | 'dynamic';
  /** Blind retransmissions of every transport block, 0-2. */
  retransmissions: number;
}

export interface ResolvedVehicle {
  name: string;
  index: number;
  start: { x: number; y: number; yaw: number; speed: number };
  params: VehicleParams;
  controlRate: number;
  observes: string[];
  controller: ResolvedController;
  apps: AppParsed[];
  image?: string;
  command?: string[];
  compute: ResolvedCompute;
  resources: { cpus?: number; memory?: number };
  /** Present when the car has a lidar (given and enabled, or implied by a scan-driven controller). */
  lidar?: ResolvedLidar;
  /** Present when the car's controller (or body) is a device that connects to the run. */
  external?: ResolvedExternal;
}

/** Seconds; `listen.port` 0 means a free port, chosen and printed when the run starts. */
export interface ResolvedExternal {
  role: 'controller' | 'body';
  listen: { host: string; port: number };
  connectTimeout: number;
  barrier: boolean;
  /** The device's address on the control link (emulated runtime). */
  from?: string;
  /** The device's V2V interface on the host and its MAC (emulated runtime). */
  v2v?: { interface: string; mac: string };
  /** role: body only: its gates [s]. */
  body?: BodyGates;
}

/** A physical car's gates [s]: clock offset and p99 pose-report lag make the run invalid, a report gap fails it. */
export interface BodyGates {
  maxClockOffset: number;
  maxPoseLag: number;
  maxReportGap: number;
}

/** Seconds; see the schema's `compute`. */
export interface ResolvedCompute {
  model: 'none' | 'measured' | 'fixed';
  scale: number;
  fixed: number;
  timeout: number;
}

export interface ResolvedLidar {
  rate: number; // [Hz]
  beams: number;
  fov: number; // [rad]
  rangeMax: number; // [m]
  noiseStd: number; // [m]
  seed: number; // noise seed, derived from the scenario seed and the car's name
}

export type ResolvedController =
  | {
      type: 'pure-pursuit';
      waypoints: Waypoint[];
      lookahead: number;
      lookaheadTolerance: number;
      gain: number;
      speedScale: number;
      loop: boolean;
    }
  | { type: 'open-loop'; schedule: CommandStep[] }
  | { type: 'idle' }
  | { type: 'lane-keeping'; y: number; direction: '+x' | '-x'; speed: number; lookaheadTime: number; minLookahead: number }
  | ({ type: 'gap-follow' } & Omit<GapFollowOptions, 'maxSteer'>)
  | ({ type: 'wall-follow' } & Omit<WallFollowOptions, 'maxSteer'>)
  | ({ type: 'rrt'; loop: boolean } & Omit<RrtOptions, 'maxSteer'>);

/** Controllers that steer by the scan and so need a lidar. */
export const SCAN_CONTROLLERS: ReadonlySet<ResolvedController['type']> = new Set(['gap-follow', 'wall-follow', 'rrt']);

/** A vehicle driven by its own code (an image, a command, both, or an external device), not by cavsim's controller and apps. */
export const runsOwnCode = (v: Pick<ResolvedVehicle, 'image' | 'command' | 'external'>) =>
  v.image !== undefined || v.command !== undefined || v.external !== undefined;
