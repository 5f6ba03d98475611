import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
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
import { SensingMemory } from './sensing.js';
import type { SidelinkConfig, SidelinkGrid } from './sidelink-grid.js';
import { blockErrorRate } from './sidelink-phy.js';
import { announced, type Copy, dbOf, type Event, mw, type Packet, type Transmission } from './sidelink-transmission.js';
import { type CopyResource, counterRange, SpsReservation } from './sps-reservation.js';

export interface SidelinkOptions {
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

/** Thermal noise density at 290 K [dBm/Hz]. */
const THERMAL_NOISE_DBM_HZ = -174;
/** A subchannel counts as busy for the CBR when its S-RSSI is over this (sl-ThresS-RSSI-CBR, -94 dBm in TR 36.885's evaluations). */
const CBR_RSSI_THRESHOLD_DBM = -94;
/** Signals this far under a subchannel's noise are neither received nor counted as interference (they add under 0.5 dB). */
const FLOOR_UNDER_NOISE_DB = 10;
/** Shadowing above this many sigmas is not looked for when deciding which cars a sender can reach. */
const SHADOWING_REACH_SIGMAS = 4;

/**
 * C-V2X sidelink (LTE-V2X Mode 4, NR-V2X Mode 2) in virtual time, per slot with transmissions in it:
 * sensing-based semi-persistent or dynamic scheduling (TS 36.213 14.1.1.6, TS 38.214 8.1.4; TS 36.321
 * 5.14.1.1, TS 38.321 5.22.1.1), blind retransmissions, half duplex, and per-receiver SINR over each
 * message's subchannels against every overlapping transmission, decoded by the BLER curve of
 * sidelink-phy.ts. Propagation (path loss, the map's walls, shadowing) is the 802.11p engine's
 * LinkBudget. docs/sidelink.md gives every rule its clause.
 */
export class SidelinkChannel<P> implements V2VChannel<P> {
  private readonly n: number;
  private readonly indexOf: Map<string, number>;
  private readonly events = new EventQueue<Event<P>>();
  private readonly scheduled = new Map<number, number[]>();
  private readonly copiesAt = new Map<number, Copy<P>[]>();
  private readonly reservations: SpsReservation<Packet<P>>[];
  private readonly sensing: SensingMemory;
  private readonly grid: SidelinkGrid;
  private readonly slotS: number;
  private readonly budget: LinkBudget;
  private readonly index: SpatialIndex;
  /** The farthest a transmission reaches a car above the floor [m]. */
  readonly reach: number;
  private readonly x: Float64Array;
  private readonly y: Float64Array;
  private readonly odometer: Float64Array;
  private located = false;
  private readonly period: number;
  /** The packet delay budget [slots]: the reservation interval, at most 100 ms. */
  private readonly delayBudget: number;
  private readonly channelNoiseMw: number;
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

  constructor(
    private readonly opts: SidelinkOptions,
    private readonly config: SidelinkConfig,
  ) {
    this.outcomes = new DueOutcomes(opts.tally);
    const network = config.propagation;
    const n = opts.names.length;
    this.n = n;
    this.indexOf = new Map(opts.names.map((name, i) => [name, i]));
    this.grid = config.grid;
    this.slotS = config.grid.slotS;
    const S = config.grid.subchannels;
    this.period = Math.round(config.rri / this.slotS);
    this.delayBudget = Math.round(Math.min(config.rri, 0.1) / this.slotS);
    this.reservations = Array.from({ length: n }, () => new SpsReservation<Packet<P>>(this.period, Math.round(1 / this.slotS)));
    const window = Math.round(config.sensingWindow / this.slotS);
    this.sensing = new SensingMemory(n, S, window, Math.round(0.1 / this.slotS), config.retransmissions, config.rankByRssi);
    this.budget = new LinkBudget(network, opts.grid, n, opts.seed);
    const thermal = THERMAL_NOISE_DBM_HZ + 10 * Math.log10(config.grid.noiseBandwidthHz) + network.noiseFigure;
    this.channelNoiseMw = mw(config.noiseFloor ?? thermal);
    this.subchannelNoiseMw = this.channelNoiseMw * config.grid.subchannelNoiseShare;
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
    this.energy = new Float64Array(n * S);
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
    if (car === undefined) throw new Error(`${this.config.channel}: no car named ${frame.from}`);
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
    const cells = Math.round(CHANNEL_BUSY_WINDOW_S / this.slotS) * this.grid.subchannels;
    for (let i = 0; i < this.n; i++) {
      this.busyWindows.push({ car: this.opts.names[i], start: this.windowStart, end, busyRatio: this.busyCells[i] / cells });
      this.busyCells[i] = 0;
    }
    this.windowStart = end;
    this.windowsClosed++;
  }

  // --- MAC: semi-persistent scheduling ------------------------------------------------------------

  private arrive(car: number, packet: Packet<P>, t: number): void {
    if (packet.bytes > this.grid.capacityBytes(this.grid.subchannels)) {
      this.outcomes.lostEverywhere(packet.frame, 'queue-drop', t);
      return;
    }
    const sps = this.reservations[car];
    sps.queue.push(packet);
    sps.queuedBytes += packet.bytes;
    this.place(car, Math.floor(t / this.slotS + 1e-9));
  }

  /**
   * Puts what `car` has queued on its reservation, selecting a new one first if a trigger of TS 36.321
   * 5.14.1.1 / TS 38.321 5.22.1.1 says so (dynamic scheduling: one for every transport block); with
   * retransmissions, each copy on a resource of its own slot in the same selection window.
   */
  private place(car: number, subframe: number): void {
    const sps = this.reservations[car];
    if (sps.trigger(subframe + 1, this.delayBudget)) {
      const length = this.grid.subchannelsFor(sps.queuedBytes) ?? this.grid.subchannels;
      const threshold = this.grid.exclusionRsrpDbm;
      const chosen = [this.sensing.select(car, subframe, length, this.period, this.delayBudget, threshold, this.selectDraw)];
      for (let k = 0; k < this.config.retransmissions; k++) {
        const avoid = chosen.map((c) => c.subframe);
        chosen.push(this.sensing.select(car, subframe, length, this.period, this.delayBudget, threshold, this.selectDraw, avoid));
      }
      chosen.sort((a, b) => a.subframe - b.subframe);
      const [initial] = chosen;
      const copies: CopyResource[] = chosen.slice(1).map((c) => ({ offset: c.subframe - initial.subframe, first: c.first }));
      const counter = this.config.scheduling === 'dynamic' ? 1 : this.drawCounter();
      sps.reserve(initial.subframe, initial.first, length, this.grid.capacityBytes(length), counter, copies);
      this.selections++;
    }
    this.schedule(car, sps.occurrenceFrom(subframe + 1));
  }

  private drawCounter(): number {
    const [lo, hi] = counterRange(Math.round(this.config.rri * 1000));
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
      if (!this.copiesAt.has(subframe)) this.events.push((subframe + 1) * this.slotS, { kind: 'subframe', subframe });
    }
    cars.push(car);
  }

  private scheduleCopy(subframe: number, copy: Copy<P>): void {
    let copies = this.copiesAt.get(subframe);
    if (!copies) {
      copies = [];
      this.copiesAt.set(subframe, copies);
      if (!this.scheduled.has(subframe)) this.events.push((subframe + 1) * this.slotS, { kind: 'subframe', subframe });
    }
    copies.push(copy);
  }

  /** After a transmission: the counter counts down; at 0 the reservation is kept with keepProbability, else reselected at the next packet. */
  private afterTransmission(car: number, subframe: number): void {
    const sps = this.reservations[car];
    sps.next = subframe + this.period;
    sps.lastUsed = subframe;
    sps.counter--;
    if (this.config.scheduling === 'dynamic') sps.active = false;
    else if (sps.counter <= 0 && this.counterDraw() < this.config.keepProbability) sps.counter = this.drawCounter();
    if (sps.queue.length) this.place(car, subframe);
  }

  // --- PHY: one slot -------------------------------------------------------------------------------

  private decideSubframe(subframe: number): void {
    const cars = this.scheduled.get(subframe) ?? [];
    this.scheduled.delete(subframe);
    const copies = this.copiesAt.get(subframe) ?? [];
    this.copiesAt.delete(subframe);
    const txs: Transmission<P>[] = [];
    const initials: number[] = [];
    const start = (car: number) => {
      this.transmittingAt[car] = subframe;
      this.sensing.recordOwnTransmission(car, subframe);
      this.reachedPool[txs.length] ??= new ReachedCars(this.n);
      const reached = this.reachedPool[txs.length];
      reached.count = 0;
      return reached;
    };
    for (const car of cars) {
      const sps = this.reservations[car];
      if (sps.scheduledAt !== subframe) continue;
      sps.scheduledAt = -1;
      const block = sps.takeBlock();
      if (!block.length) continue;
      const packets = block.map((packet) => ({ packet, open: this.addressees(packet.frame, car) }));
      const { first, length, copies: later } = sps;
      const announce = announced(subframe, first, later, 0);
      txs.push(this.transmission({ car, first, length, packets, final: !later.length, announce }, start(car)));
      initials.push(car);
      later.forEach((c, i) => {
        const copy = {
          car,
          first: c.first,
          length,
          packets,
          final: i === later.length - 1,
          announce: announced(subframe, first, later, i + 1),
        };
        this.scheduleCopy(subframe + c.offset, copy);
      });
    }
    for (const c of copies) if (this.transmittingAt[c.car] !== subframe) txs.push(this.transmission(c, start(c.car)));
    for (const tx of txs) this.propagate(tx, subframe);
    const at = (subframe + 1) * this.slotS;
    for (const tx of txs) this.decide(tx, subframe, at);
    this.measure(subframe);
    for (const car of initials) this.afterTransmission(car, subframe);
  }

  private transmission(c: Copy<P>, reached: ReachedCars): Transmission<P> {
    const { grid } = this;
    const noiseMw = this.channelNoiseMw * grid.noiseShare(c.length);
    return { ...c, noiseMw, shiftDb: grid.shiftDb(c.length), rsrpOffsetDb: grid.rsrpOffsetDb(c.length), reached };
  }

  private addressees(frame: ChannelFrame<P>, from: number): Uint8Array | undefined {
    if (frame.broadcast && frame.to.length === this.n - 1 && !this.config.retransmissions) return undefined;
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
    const S = this.grid.subchannels;
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

  /**
   * At each car it reached: half duplex, under the sensitivity, or decoded at its SINR over the
   * message's subchannels. A copy before the last reports only the packets it delivers.
   */
  private decide(tx: Transmission<P>, subframe: number, at: number): void {
    const S = this.grid.subchannels;
    const period = this.config.scheduling === 'dynamic' ? 0 : this.period;
    const serial = ++this.serial;
    const reached = tx.reached;
    for (let k = 0; k < reached.count; k++) {
      const r = reached.cars[k];
      this.reachedBy[r] = serial;
      const power = reached.powersMw[k];
      const dbm = reached.dbms[k];
      let lost: LossReason | undefined;
      if (this.transmittingAt[r] === subframe) lost = 'half-duplex';
      else if (dbm < this.grid.sensitivityDbm) lost = 'below-sensitivity';
      else {
        this.sensing.recordSci(r, tx.car, subframe, tx.first, tx.length, period, dbm - tx.rsrpOffsetDb, tx.announce);
        let interference = 0;
        for (let c = tx.first; c < tx.first + tx.length; c++) interference += this.energy[r * S + c];
        interference = Math.max(0, interference - power);
        const u = this.decodeDraw();
        if (u < blockErrorRate(dbOf(power / (tx.noiseMw + interference)), tx.shiftDb))
          lost = u < blockErrorRate(dbOf(power / tx.noiseMw), tx.shiftDb) ? 'propagation' : 'collision';
      }
      if (lost && !tx.final) continue;
      for (const p of tx.packets) this.report(p.packet, p.open, r, at, lost, reached.distances[k], dbm, reached.lineOfSight(k));
    }
    if (!tx.final) return;
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
    const S = this.grid.subchannels;
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
