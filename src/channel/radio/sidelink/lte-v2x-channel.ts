import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
import type { LteV2xNetwork, WifiNetwork } from '../../../scenario/resolved.js';
import { createRandom, deriveSeed } from '../../../util/random.js';
import {
  CHANNEL_BUSY_WINDOW_S,
  type ChannelBusySample,
  type ChannelFrame,
  type Delivery,
  type LossReason,
  type V2VChannel,
} from '../../frames.js';
import { DueOutcomes, type FleetTally } from '../medium/due-outcomes.js';
import { EventQueue } from '../medium/event-queue.js';
import { SpatialIndex } from '../medium/spatial-index.js';
import { CARRIER_HZ, LinkBudget } from '../wifi-80211p/link-budget.js';
import { distanceForLoss, modelShadowing, pathLossModel } from '../wifi-80211p/path-loss.js';
import type { CarPosition } from '../wifi-80211p/wifi-80211p-channel.js';
import { ReachedCars } from './reached-cars.js';
import { CHANNEL_BLOCKS, ResourcePool, SUBFRAME_S } from './resource-pool.js';
import { SensingMemory } from './sensing.js';
import { blockErrorRate, SENSITIVITY_DBM, sinrShiftDb } from './sidelink-phy.js';
import { counterRange, SpsReservation } from './sps-reservation.js';

export interface LteV2xOptions {
  network: LteV2xNetwork;
  /** Vehicle names in index order. */
  names: readonly string[];
  positions: () => readonly CarPosition[];
  grid?: OccupancyGrid;
  seed: number;
  /** Time from a send call until the packet reaches the MAC [s], drawn per packet. */
  stackDelay?: () => number;
  /** Fleets: outcomes counted here; only deliveries to `listeners` come out of `deliverDue` (as Wifi80211pOptions.tally). */
  tally?: FleetTally;
}

/** Thermal noise in 10 MHz at 290 K [dBm]. */
const THERMAL_NOISE_10MHZ_DBM = -174 + 10 * Math.log10(10e6);
/** Data resource elements of the reference message (10 blocks): PSSCH-RSRP is the power per element. */
const REFERENCE_ELEMENTS = 12 * 10;
/**
 * The PSSCH-RSRP over which another car's reservation excludes a candidate, before it is raised: the
 * reference's sensing threshold (-90.5 dBm over a one-subchannel message) per resource element.
 */
const EXCLUSION_RSRP_DBM = SENSITIVITY_DBM - 10 * Math.log10(REFERENCE_ELEMENTS);
/** A subchannel counts as busy for the CBR when its S-RSSI is over this (sl-ThresS-RSSI-CBR, -94 dBm in TR 36.885's evaluations). */
const CBR_RSSI_THRESHOLD_DBM = -94;
/** Signals this far under a subchannel's noise are neither received nor counted as interference (they add under 0.5 dB). */
const FLOOR_UNDER_NOISE_DB = 10;
/** Shadowing above this many sigmas is not looked for when deciding which cars a sender can reach. */
const SHADOWING_REACH_SIGMAS = 4;

/** dBm to mW and back; exp and log rather than `10 **`, which costs several times more per receiver. */
const mw = (dbm: number) => Math.exp(dbm * (Math.LN10 / 10));
const dbOf = (mwValue: number) => (10 / Math.LN10) * Math.log(mwValue);

interface Packet<P> {
  frame: ChannelFrame<P>;
  sentAt: number;
  bytes: number;
}

/** One car's transport block in one subframe, and what each car it reached got of it. */
interface Transmission<P> {
  car: number;
  /** Each packet and its addressees still owed an outcome (undefined: every car but the sender; each gets one outcome). */
  packets: { packet: Packet<P>; open: Uint8Array | undefined }[];
  first: number;
  length: number;
  /** The message's noise over its data blocks [mW], and how much more SINR its MCS needs than the reference [dB]. */
  noiseMw: number;
  shiftDb: number;
  rsrpOffsetDb: number;
  reached: ReachedCars;
}

type Event<P> = { kind: 'arrive'; car: number; packet: Packet<P> } | { kind: 'subframe'; subframe: number };

/**
 * LTE-V2X Mode 4 (3GPP Rel-14 sidelink) in virtual time, per subframe with transmissions in it:
 * sensing-based semi-persistent scheduling (TS 36.213 14.1.1.6, TS 36.321 5.14.1.1), half duplex,
 * and per-receiver SINR over each message's subchannels against every overlapping transmission,
 * decoded by the BLER curve of sidelink-phy.ts. Propagation (path loss, the map's walls, shadowing)
 * is the 802.11p engine's LinkBudget. docs/sidelink.md gives every rule its clause.
 */
export class LteV2xChannel<P> implements V2VChannel<P> {
  private readonly n: number;
  private readonly indexOf: Map<string, number>;
  private readonly events = new EventQueue<Event<P>>();
  private readonly scheduled = new Map<number, number[]>();
  private readonly reservations: SpsReservation<Packet<P>>[];
  private readonly sensing: SensingMemory;
  private readonly pool: ResourcePool;
  private readonly budget: LinkBudget;
  private readonly index: SpatialIndex;
  /** The farthest a transmission reaches a car above the floor [m]. */
  readonly reach: number;
  private readonly x: Float64Array;
  private readonly y: Float64Array;
  private readonly odometer: Float64Array;
  private located = false;
  private readonly period: number;
  /** The packet delay budget [subframes]: the reservation interval, at most 100 ms. */
  private readonly delayBudget: number;
  private readonly noise10MhzMw: number;
  private readonly floorMw: number;
  private readonly cbrThresholdMw: number;
  private readonly subchannelNoiseMw: number;
  /** Per car and subchannel: the energy received in the subframe being decided [mW]. */
  private readonly energy: Float64Array;
  private readonly touchedAt: Int32Array;
  private readonly touched: number[] = [];
  private readonly transmittingAt: Int32Array;
  private readonly reachedBy: Int32Array;
  private readonly busyCells: Float64Array;
  /** Scratch for the cars each transmission of a subframe reached. */
  private readonly reachedPool: ReachedCars[] = [];
  private readonly outcomes: DueOutcomes<P>;
  private readonly busyWindows: ChannelBusySample[] = [];
  private windowStart = 0;
  private windowsClosed = 0;
  private clock = 0;
  private serial = 0;
  private readonly selectDraw: () => number;
  private readonly counterDraw: () => number;
  private readonly decodeDraw: () => number;
  /** Resource (re)selections made, for the tests and the docs' figures. */
  selections = 0;

  constructor(private readonly opts: LteV2xOptions) {
    this.outcomes = new DueOutcomes(opts.tally);
    const { network } = opts;
    const n = opts.names.length;
    this.n = n;
    this.indexOf = new Map(opts.names.map((name, i) => [name, i]));
    this.period = Math.round(network.rri / SUBFRAME_S);
    this.delayBudget = Math.min(this.period, 100);
    this.reservations = Array.from({ length: n }, () => new SpsReservation<Packet<P>>(this.period));
    this.pool = new ResourcePool(network.subchannels, network.mcs);
    this.sensing = new SensingMemory(n, network.subchannels);
    this.budget = new LinkBudget(propagationOf(network), opts.grid, n, opts.seed);
    this.noise10MhzMw = mw(network.noiseFloor ?? THERMAL_NOISE_10MHZ_DBM + network.noiseFigure);
    this.subchannelNoiseMw = (this.noise10MhzMw * this.pool.subchannelBlocks) / CHANNEL_BLOCKS;
    const floorDbm = dbOf(this.subchannelNoiseMw) - FLOOR_UNDER_NOISE_DB;
    this.floorMw = mw(floorDbm);
    this.cbrThresholdMw = mw(CBR_RSSI_THRESHOLD_DBM);
    const loss = pathLossModel(network.propagation, { frequencyHz: CARRIER_HZ, antennaHeight: network.antennaHeight });
    const sigma = Math.max(network.shadowing, modelShadowing(network.propagation, false)?.sigmaDb ?? 0);
    this.reach = distanceForLoss(loss, network.txPower - floorDbm + SHADOWING_REACH_SIGMAS * sigma);
    this.index = new SpatialIndex(n, this.reach);
    this.x = new Float64Array(n);
    this.y = new Float64Array(n);
    this.odometer = new Float64Array(n);
    this.energy = new Float64Array(n * network.subchannels);
    this.touchedAt = new Int32Array(n).fill(-1);
    this.transmittingAt = new Int32Array(n).fill(-1);
    this.reachedBy = new Int32Array(n).fill(-1);
    this.busyCells = new Float64Array(n);
    this.selectDraw = createRandom(deriveSeed(opts.seed, 'sidelink-select'));
    this.counterDraw = createRandom(deriveSeed(opts.seed, 'sidelink-counter'));
    this.decodeDraw = createRandom(deriveSeed(opts.seed, 'sidelink-decode'));
  }

  send(frame: ChannelFrame<P>, now: number): void {
    const car = this.indexOf.get(frame.from);
    if (car === undefined) throw new Error(`lte-v2x: no car named ${frame.from}`);
    const packet = { frame, sentAt: now, bytes: frame.sizeBytes };
    this.events.push(Math.max(now + (this.opts.stackDelay?.() ?? 0), this.clock), { kind: 'arrive', car, packet });
  }

  deliverDue(now: number): Delivery<P>[] {
    this.run(now);
    return this.outcomes.takeDue(now);
  }

  takeChannelBusy(now: number): ChannelBusySample[] {
    this.run(now);
    return this.busyWindows.splice(0, this.busyWindows.length);
  }

  private run(now: number): void {
    if (now < this.clock) return;
    this.locateCars();
    for (;;) {
      const next = this.events.peekTime();
      const boundary = (this.windowsClosed + 1) * CHANNEL_BUSY_WINDOW_S;
      if (boundary <= now && boundary <= next) {
        this.closeWindow(boundary);
        continue;
      }
      if (next > now) break;
      const event = this.events.pop()!;
      this.clock = next;
      if (event.kind === 'arrive') this.arrive(event.car, event.packet, next);
      else this.decideSubframe(event.subframe);
    }
    this.clock = now;
  }

  private locateCars(): void {
    const positions = this.opts.positions();
    for (let i = 0; i < this.n; i++) {
      const { x, y } = positions[i];
      if (this.located) this.odometer[i] += Math.hypot(x - this.x[i], y - this.y[i]);
      this.x[i] = x;
      this.y[i] = y;
    }
    this.located = true;
    this.index.rebuild(this.x, this.y);
  }

  /** CBR (TS 36.214 5.1.30): the share of the window's subchannels whose S-RSSI was over the threshold, per car. */
  private closeWindow(end: number): void {
    const cells = Math.round(CHANNEL_BUSY_WINDOW_S / SUBFRAME_S) * this.opts.network.subchannels;
    for (let i = 0; i < this.n; i++) {
      this.busyWindows.push({ car: this.opts.names[i], start: this.windowStart, end, busyRatio: this.busyCells[i] / cells });
      this.busyCells[i] = 0;
    }
    this.windowStart = end;
    this.windowsClosed++;
  }

  // --- MAC: semi-persistent scheduling ------------------------------------------------------------

  private arrive(car: number, packet: Packet<P>, t: number): void {
    if (packet.bytes > this.pool.capacityBytes(this.opts.network.subchannels)) {
      this.outcomes.lostEverywhere(packet.frame, 'queue-drop', t);
      return;
    }
    const sps = this.reservations[car];
    sps.queue.push(packet);
    sps.queuedBytes += packet.bytes;
    this.place(car, Math.floor(t / SUBFRAME_S + 1e-9));
  }

  /** Puts what `car` has queued on its reservation, selecting a new one first if a trigger of TS 36.321 5.14.1.1 says so. */
  private place(car: number, subframe: number): void {
    const sps = this.reservations[car];
    if (sps.trigger(subframe + 1, this.delayBudget)) {
      const length = this.pool.subchannelsFor(sps.queuedBytes) ?? this.opts.network.subchannels;
      const chosen = this.sensing.select(car, subframe, length, this.period, this.delayBudget, EXCLUSION_RSRP_DBM, this.selectDraw);
      sps.reserve(chosen.subframe, chosen.first, length, this.pool.capacityBytes(length), this.drawCounter());
      this.selections++;
    }
    this.schedule(car, sps.occurrenceFrom(subframe + 1));
  }

  private drawCounter(): number {
    const [lo, hi] = counterRange(this.period);
    return lo + Math.floor(this.counterDraw() * (hi - lo + 1));
  }

  private schedule(car: number, subframe: number): void {
    const sps = this.reservations[car];
    if (sps.scheduledAt === subframe) return;
    sps.scheduledAt = subframe;
    let cars = this.scheduled.get(subframe);
    if (!cars) {
      cars = [];
      this.scheduled.set(subframe, cars);
      this.events.push((subframe + 1) * SUBFRAME_S, { kind: 'subframe', subframe });
    }
    cars.push(car);
  }

  /** After a transmission: the counter counts down; at 0 the reservation is kept with keepProbability, else reselected at the next packet. */
  private afterTransmission(car: number, subframe: number): void {
    const sps = this.reservations[car];
    sps.next = subframe + this.period;
    sps.lastUsed = subframe;
    sps.counter--;
    if (sps.counter <= 0 && this.counterDraw() < this.opts.network.keepProbability) sps.counter = this.drawCounter();
    if (sps.queue.length) this.place(car, subframe);
  }

  // --- PHY: one subframe ----------------------------------------------------------------------------

  private decideSubframe(subframe: number): void {
    const cars = this.scheduled.get(subframe) ?? [];
    this.scheduled.delete(subframe);
    const txs: Transmission<P>[] = [];
    for (const car of cars) {
      const sps = this.reservations[car];
      if (sps.scheduledAt !== subframe) continue;
      sps.scheduledAt = -1;
      const block = sps.takeBlock();
      if (!block.length) continue;
      this.transmittingAt[car] = subframe;
      this.sensing.recordOwnTransmission(car, subframe);
      this.reachedPool[txs.length] ??= new ReachedCars(this.n);
      const reached = this.reachedPool[txs.length];
      reached.count = 0;
      txs.push(this.transmission(car, sps.first, sps.length, block, reached));
    }
    for (const tx of txs) this.propagate(tx, subframe);
    const at = (subframe + 1) * SUBFRAME_S;
    for (const tx of txs) this.decide(tx, subframe, at);
    this.measure(subframe);
    for (const tx of txs) this.afterTransmission(tx.car, subframe);
  }

  private transmission(car: number, first: number, length: number, block: Packet<P>[], reached: ReachedCars): Transmission<P> {
    const dataBlocks = this.pool.dataBlocks(length);
    const packets = block.map((packet) => ({ packet, open: this.addressees(packet.frame, car) }));
    return {
      car,
      packets,
      first,
      length,
      noiseMw: (this.noise10MhzMw * dataBlocks) / CHANNEL_BLOCKS,
      shiftDb: sinrShiftDb(this.opts.network.mcs, dataBlocks),
      rsrpOffsetDb: 10 * Math.log10(12 * dataBlocks),
      reached,
    };
  }

  private addressees(frame: ChannelFrame<P>, from: number): Uint8Array | undefined {
    if (frame.broadcast && frame.to.length === this.n - 1) return undefined;
    const open = new Uint8Array(this.n);
    for (const to of frame.to) {
      const r = this.indexOf.get(to);
      if (r !== undefined && r !== from) open[r] = 1;
    }
    return open;
  }

  /** Every car within reach gets the transmission's power, spread evenly over its subchannels. */
  private propagate(tx: Transmission<P>, subframe: number): void {
    const s = tx.car;
    const S = this.opts.network.subchannels;
    this.index.forEachWithin(s, this.x, this.y, (r, distance) => {
      const dbm = this.budget.rxPowerDbm(s, r, this.x[s], this.y[s], this.x[r], this.y[r], distance, this.odometer);
      const power = mw(dbm);
      if (power < this.floorMw) return;
      tx.reached.add(r, power, dbm, distance, this.budget.lastLineOfSight);
      if (this.touchedAt[r] !== subframe) {
        this.touchedAt[r] = subframe;
        this.touched.push(r);
      }
      const share = power / tx.length;
      for (let c = tx.first; c < tx.first + tx.length; c++) this.energy[r * S + c] += share;
    });
  }

  /** At each car it reached: half duplex, under the sensitivity, or decoded at its SINR over the message's subchannels. */
  private decide(tx: Transmission<P>, subframe: number, at: number): void {
    const S = this.opts.network.subchannels;
    const serial = ++this.serial;
    const reached = tx.reached;
    for (let k = 0; k < reached.count; k++) {
      const r = reached.cars[k];
      this.reachedBy[r] = serial;
      const power = reached.powersMw[k];
      const dbm = reached.dbms[k];
      let lost: LossReason | undefined;
      if (this.transmittingAt[r] === subframe) lost = 'half-duplex';
      else if (dbm < SENSITIVITY_DBM) lost = 'below-sensitivity';
      else {
        this.sensing.recordSci(r, tx.car, subframe, tx.first, tx.length, this.period, dbm - tx.rsrpOffsetDb);
        let interference = 0;
        for (let c = tx.first; c < tx.first + tx.length; c++) interference += this.energy[r * S + c];
        interference = Math.max(0, interference - power);
        const u = this.decodeDraw();
        if (u < blockErrorRate(dbOf(power / (tx.noiseMw + interference)), tx.shiftDb))
          lost = u < blockErrorRate(dbOf(power / tx.noiseMw), tx.shiftDb) ? 'propagation' : 'collision';
      }
      for (const p of tx.packets) this.report(p.packet, p.open, r, at, lost, reached.distances[k], dbm, reached.lineOfSight(k));
    }
    for (const p of tx.packets) {
      const tally = this.opts.tally;
      if (tally && !p.open) {
        const beyond = this.n - 1 - reached.count;
        if (beyond) tally.outcomes.addBeyondReach(beyond);
        continue;
      }
      let beyond = 0;
      for (let r = 0; r < this.n; r++) {
        if (r === tx.car || (p.open && !p.open[r]) || this.reachedBy[r] === serial) continue;
        if (tally) {
          p.open![r] = 0;
          beyond++;
        } else this.report(p.packet, p.open, r, at, 'below-sensitivity', Number.NaN);
      }
      if (beyond) tally?.outcomes.addBeyondReach(beyond);
    }
  }

  /** The subframe's S-RSSI at every car that received anything (not while it transmitted): sensing memory and CBR. */
  private measure(subframe: number): void {
    const S = this.opts.network.subchannels;
    for (const r of this.touched) {
      if (this.transmittingAt[r] !== subframe) {
        this.sensing.recordRssi(r, subframe, this.energy, r * S);
        for (let c = 0; c < S; c++) if (this.energy[r * S + c] + this.subchannelNoiseMw > this.cbrThresholdMw) this.busyCells[r]++;
      }
      this.energy.fill(0, r * S, (r + 1) * S);
    }
    this.touched.length = 0;
  }

  private report(
    packet: Packet<P>,
    open: Uint8Array | undefined,
    r: number,
    at: number,
    lost: LossReason | undefined,
    distance: number,
    rxPowerDbm?: number,
    lineOfSight?: boolean,
  ): void {
    if (open) {
      if (!open[r]) return;
      open[r] = 0;
    }
    this.outcomes.settle(packet.frame.payload, this.opts.names[r], packet.sentAt, at, lost, distance, rxPowerDbm, lineOfSight);
  }
}

/** LinkBudget reads only the propagation keys, which both radios share; the 802.11p-only ones are placeholders it never reads. */
function propagationOf(n: LteV2xNetwork): WifiNetwork {
  const { txPower, propagation, obstacles, antennaHeight, noiseFigure, shadowing } = n;
  return { channel: 'wifi-80211p', txPower, propagation, obstacles, antennaHeight, noiseFigure, shadowing, rate: 6e6 };
}
