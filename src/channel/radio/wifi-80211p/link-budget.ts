import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
import type { WifiNetwork } from '../../../scenario/resolved.js';
import { createRandom, deriveSeed } from '../../../util/random.js';
import { distanceForLoss, modelShadowing, type PathLoss, pathLossModel } from './path-loss.js';
import { PairShadowing } from './shadowing.js';
import { WallTracer } from './wall-loss.js';

/** Sommer et al.'s obstacle shadowing, as the ns-3 engine sets it: per wall crossed and per metre inside walls [dB]. */
const WALL_CUT_DB = 9;
const WALL_METRE_DB = 0.4;
/** The decorrelation distance of the scenario's `shadowing` (3GPP TR 37.885's, for highway line of sight) [m]. */
export const SHADOWING_DECORRELATION_M = 25;
/** Shadowing above this many sigmas is not looked for when deciding which cars a sender can reach (a 3e-5 tail). */
const SHADOWING_REACH_SIGMAS = 4;
/** The carrier frequency both engines use [Hz]: ITS-G5's control channel. */
export const CARRIER_HZ = 5.9e9;
/** Thermal noise in 10 MHz at 290 K [dBm]: -174 dBm/Hz + 70 dB. */
const THERMAL_NOISE_10MHZ_DBM = -174 + 10 * Math.log10(10e6);
/**
 * ns-3's YANS channel hands a receiver nothing under its sensitivity (-101 dBm for 20 MHz, so -104 dBm
 * on 10 MHz): such a signal is neither decoded nor interference. The builtin engine uses the same floor
 * to decide which cars a transmission reaches.
 */
export const REACH_FLOOR_DBM = -101 + 10 * Math.log10(10 / 20);

/** dBm to mW: through exp, about three times as fast as 10 ** (dbm / 10) and equal to it within a few units in the last place. */
const MW_PER_DBM_EXPONENT = Math.LN10 / 10;
export const dbmToMw = (dbm: number) => Math.exp(dbm * MW_PER_DBM_EXPONENT);
/** A power this far under REACH_FLOOR_DBM is under the floor in mW too, however the conversion rounds: no need to convert it. */
export const SURELY_UNDER_FLOOR_DBM = REACH_FLOOR_DBM - 1e-6;

export const noiseFloorDbm = (n: WifiNetwork) => n.noiseFloor ?? THERMAL_NOISE_10MHZ_DBM + n.noiseFigure;

interface ShadowingParams {
  sigmaDb: number;
  decorrelationM: number;
}

/** Received power between two cars: path loss, the map's walls (or the 3GPP models' NLOS), and shadowing. */
export class LinkBudget {
  private readonly loss: PathLoss;
  private readonly walls: WallTracer | undefined;
  private readonly shadowing: PairShadowing;
  private readonly threeGpp: boolean;
  private readonly txPower: number;
  /** The shadowing a path gets with its line of sight clear and blocked (the same without a 3GPP model); undefined: none. */
  private readonly shadowingLos: ShadowingParams | undefined;
  private readonly shadowingNlos: ShadowingParams | undefined;
  /** Beyond this distance no car receives above REACH_FLOOR_DBM [m]. */
  readonly reach: number;

  constructor(network: WifiNetwork, grid: OccupancyGrid | undefined, cars: number, seed: number) {
    this.loss = pathLossModel(network.propagation, { frequencyHz: CARRIER_HZ, antennaHeight: network.antennaHeight });
    this.walls = network.obstacles === 'map' && grid ? new WallTracer(grid) : undefined;
    this.shadowing = new PairShadowing(cars, createRandom(deriveSeed(seed, 'wifi-shadowing')));
    this.txPower = network.txPower;
    const scenarioShadowing = network.shadowing > 0 ? { sigmaDb: network.shadowing, decorrelationM: SHADOWING_DECORRELATION_M } : undefined;
    this.shadowingLos = modelShadowing(network.propagation, true) ?? scenarioShadowing;
    this.shadowingNlos = modelShadowing(network.propagation, false) ?? scenarioShadowing;
    this.threeGpp = modelShadowing(network.propagation, true) !== undefined;
    const sigma = Math.max(network.shadowing, modelShadowing(network.propagation, false)?.sigmaDb ?? 0);
    this.reach = distanceForLoss(this.loss, network.txPower - REACH_FLOOR_DBM + SHADOWING_REACH_SIGMAS * sigma);
  }

  /** Whether the walls left the line of sight clear on the last path `rxPowerDbm` looked at; undefined without walls. */
  lastLineOfSight: boolean | undefined;

  /** Received power [dBm] at `b` of a frame from `a` (allocates nothing: it is called per frame and receiver). */
  rxPowerDbm(a: number, b: number, ax: number, ay: number, bx: number, by: number, distance: number, odometer: Float64Array): number {
    const dbm = this.unshadowedDbm(ax, ay, bx, by, distance);
    return dbm - this.shadowingDb(a, b, odometer, this.lastLineOfSight !== false);
  }

  /**
   * `rxPowerDbm` from `a` at each of the first `count` cars of `to` (at `distances`), into `dbm`, and
   * each path's line of sight into `lineOfSight` (LINE_OF_SIGHT_*). One call per frame, in two passes
   * each small enough for the compiler to inline what it calls: a call that is not inlined boxes every
   * number it passes, per frame and receiver.
   */
  rxPowersDbm(
    a: number,
    to: Int32Array,
    distances: Float64Array,
    count: number,
    positions: { x: Float64Array; y: Float64Array; odometer: Float64Array },
    dbm: Float64Array,
    lineOfSight: Uint8Array,
  ): void {
    this.unshadowedPowersDbm(a, to, distances, count, positions.x, positions.y, dbm, lineOfSight);
    this.subtractShadowing(a, to, count, positions.odometer, dbm, lineOfSight);
  }

  private unshadowedPowersDbm(
    a: number,
    to: Int32Array,
    distances: Float64Array,
    count: number,
    x: Float64Array,
    y: Float64Array,
    dbm: Float64Array,
    lineOfSight: Uint8Array,
  ): void {
    for (let k = 0; k < count; k++) {
      const b = to[k];
      dbm[k] = this.unshadowedDbm(x[a], y[a], x[b], y[b], distances[k]);
      const clear = this.lastLineOfSight;
      lineOfSight[k] = clear === undefined ? LINE_OF_SIGHT_UNKNOWN : clear ? LINE_OF_SIGHT_CLEAR : LINE_OF_SIGHT_BLOCKED;
    }
  }

  /** In the order of `to`, as `rxPowerDbm` one by one would: the shadowing's random draws follow it. */
  private subtractShadowing(
    a: number,
    to: Int32Array,
    count: number,
    odometer: Float64Array,
    dbm: Float64Array,
    lineOfSight: Uint8Array,
  ): void {
    for (let k = 0; k < count; k++) dbm[k] -= this.shadowingDb(a, to[k], odometer, lineOfSight[k] !== LINE_OF_SIGHT_BLOCKED);
  }

  /** Transmit power less path loss and the walls' loss [dBm]; sets `lastLineOfSight`. */
  private unshadowedDbm(ax: number, ay: number, bx: number, by: number, distance: number): number {
    const obstruction = this.walls?.between(ax, ay, bx, by);
    const lineOfSight = obstruction ? obstruction.cuts === 0 : undefined;
    this.lastLineOfSight = lineOfSight;
    let dbm = this.txPower - this.loss(distance, lineOfSight ?? true);
    if (obstruction && !this.threeGpp) dbm -= WALL_CUT_DB * obstruction.cuts + WALL_METRE_DB * obstruction.metres;
    return dbm;
  }

  /** The pair's shadowing now [dB] (0 without shadowing: subtracting it changes nothing). */
  private shadowingDb(a: number, b: number, odometer: Float64Array, lineOfSight: boolean): number {
    const shadowing = lineOfSight ? this.shadowingLos : this.shadowingNlos;
    return shadowing ? this.shadowing.valueDb(a, b, odometer, shadowing.sigmaDb, shadowing.decorrelationM) : 0;
  }
}

/** `rxPowersDbm`'s line of sight per path: blocked, clear, or not known (no walls). */
export const LINE_OF_SIGHT_BLOCKED = 0;
export const LINE_OF_SIGHT_CLEAR = 1;
export const LINE_OF_SIGHT_UNKNOWN = 2;

/** `rxPowersDbm`'s line of sight as `lastLineOfSight` gives it. */
export const lineOfSightOf = (code: number): boolean | undefined =>
  code === LINE_OF_SIGHT_UNKNOWN ? undefined : code === LINE_OF_SIGHT_CLEAR;
