import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
import type { WifiNetwork } from '../../../scenario/resolved.js';
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
import { codingOf } from './error-model.js';
import { dbmToMw, LinkBudget, lineOfSightOf, noiseFloorDbm, REACH_FLOOR_DBM, SURELY_UNDER_FLOOR_DBM } from './link-budget.js';
import { DIFS_S, EIFS_S, frameAirTime, MAC_FRAME_OVERHEAD_BYTES, PREAMBLE_DETECTION_S, SLOT_S, SPEED_OF_LIGHT } from './ofdm-timing.js';
import { Reception } from './reception.js';
import { Station } from './station.js';
import { SpareTransmissions, type Transmission } from './transmission.js';

/** Where each car is, in vehicle-index order (the same shape the ns-3 engine is fed). */
export interface CarPosition {
  x: number;
  y: number;
}

export interface Wifi80211pOptions {
  network: WifiNetwork;
  /** Vehicle names in index order. */
  names: readonly string[];
  /** Every car's position now. */
  positions: () => readonly CarPosition[];
  grid?: OccupancyGrid;
  seed: number;
  /** Time from a send call until the frame reaches the MAC [s], drawn per frame. */
  stackDelay?: () => number;
  /**
   * Fleets: outcomes are counted here instead of listed; only deliveries to the cars in `listeners`
   * (whose apps act on what they receive) come out of `deliverDue`.
   */
  tally?: FleetTally;
}

/** DCF for non-QoS data (ns-3's 802.11p default): the contention window a backoff is drawn from. */
const CW_MIN = 15;
/** ns-3's WifiMacQueue: at most 500 frames, none older than 500 ms when it reaches the head. */
const QUEUE_MAX_FRAMES = 500;
const QUEUE_MAX_DELAY_S = 0.5;
/** ns-3's ThresholdPreambleDetectionModel: a frame is locked on when its SNR over noise and interference is at least 4 dB. */
const PREAMBLE_SNR = 10 ** (4 / 10);
/**
 * ns-3's defaults when the scenario sets no csThreshold: preamble detection from -82 dBm (802.11's
 * minimum sensitivity at 6 Mb/s on 10 MHz), and a CCA sensitivity of -82 dBm that ns-3 takes as a
 * 20 MHz figure and lowers by 3 dB on 10 MHz.
 */
const NS3_PREAMBLE_THRESHOLD_DBM = -82;
const NS3_BUSY_THRESHOLD_DBM = -82 + 10 * Math.log10(10 / 20);

type Event<P> =
  | { kind: 'enqueue'; station: number; frame: ChannelFrame<P>; sentAt: number }
  | { kind: 'access'; station: number; token: number }
  | { kind: 'end'; tx: Transmission<P> };

/**
 * The builtin engine's 802.11p: an OFDM 10 MHz PHY and a DCF MAC in virtual time, per frame and
 * receiver, modelled on what ns-3's YANS wifi does (docs/radio-model.md says where it departs).
 * A frame waits for the medium (carrier sense, DIFS or EIFS, a backoff frozen while busy), is on the
 * air for its OFDM duration, and at each car it reaches is sensed, locked on, or lost: under the
 * carrier-sense threshold (`below-sensitivity`), while the car sends or is locked on another frame
 * (`receiver-busy`), or decoded by its SINR against ns-3's error tables stretch by stretch
 * (`propagation` when it would fail with no other frame on the air, else `collision`). Cars beyond
 * the reach (received power under REACH_FLOOR_DBM even with 4 sigma of shadowing) are skipped
 * through a spatial index and reported `below-sensitivity` at once.
 */
export class Wifi80211pChannel<P> implements V2VChannel<P> {
  private readonly stations: Station<ChannelFrame<P>, Transmission<P>>[];
  /** Each station's reception, reused for every frame it locks on. */
  private readonly receptions: Reception<Transmission<P>>[];
  private readonly indexOf: Map<string, number>;
  private readonly events = new EventQueue<Event<P>>();
  /** Outcomes decided, in the order they were; `deliverDue` hands them out by time. */
  private readonly outcomes: DueOutcomes<P>;
  private readonly budget: LinkBudget;
  private readonly index: SpatialIndex;
  private readonly x: Float64Array;
  private readonly y: Float64Array;
  /** How far each car has driven, for the shadowing's decorrelation [m]. */
  private readonly odometer: Float64Array;
  /** The three above, as the link budget takes them. */
  private readonly cars: { x: Float64Array; y: Float64Array; odometer: Float64Array };
  /** What a frame brings to each car the spatial index found (in its order). */
  private readonly rxDbm: Float64Array;
  private readonly rxLineOfSight: Uint8Array;
  private located = false;
  private readonly reached: Int32Array;
  private readonly noiseMw: number;
  private readonly csThresholdMw: number;
  /** The power from which a frame keeps the medium busy (with no csThreshold, ns-3's: 3 dB under detection). */
  private readonly busyThresholdMw: number;
  private readonly floorMw: number;
  private readonly backoffDraw: () => number;
  private readonly decodeDraw: () => number;
  private readonly busyWindows: ChannelBusySample[] = [];
  private readonly spareTransmissions: SpareTransmissions<P>;
  private windowStart = 0;
  private windowsClosed = 0;
  private clock = 0;
  private transmissions = 0;

  constructor(private readonly opts: Wifi80211pOptions) {
    const { delay = 0, loss = 0 } = opts.network;
    const addedLoss = createRandom(deriveSeed(opts.seed, 'wifi-added-loss'));
    this.outcomes = new DueOutcomes(opts.tally, delay > 0 || loss > 0 ? { delay, loss, draw: addedLoss } : undefined);
    const n = opts.names.length;
    this.stations = opts.names.map((name, i) => new Station(i, name));
    this.indexOf = new Map(opts.names.map((name, i) => [name, i]));
    this.budget = new LinkBudget(opts.network, opts.grid, n, opts.seed);
    this.index = new SpatialIndex(n, this.budget.reach);
    this.x = new Float64Array(n);
    this.y = new Float64Array(n);
    this.odometer = new Float64Array(n);
    this.cars = { x: this.x, y: this.y, odometer: this.odometer };
    this.spareTransmissions = new SpareTransmissions<P>(n);
    this.rxDbm = new Float64Array(n);
    this.rxLineOfSight = new Uint8Array(n);
    this.reached = new Int32Array(n).fill(-1);
    this.noiseMw = dbmToMw(noiseFloorDbm(opts.network));
    const { csThreshold } = opts.network;
    this.csThresholdMw = dbmToMw(csThreshold ?? NS3_PREAMBLE_THRESHOLD_DBM);
    this.busyThresholdMw = dbmToMw(csThreshold ?? NS3_BUSY_THRESHOLD_DBM);
    this.floorMw = dbmToMw(REACH_FLOOR_DBM);
    const coding = codingOf(opts.network.rate);
    this.receptions = this.stations.map(() => new Reception<Transmission<P>>(coding, opts.network.rate, this.noiseMw));
    this.backoffDraw = createRandom(deriveSeed(opts.seed, 'wifi-backoff'));
    this.decodeDraw = createRandom(deriveSeed(opts.seed, 'wifi-decode'));
  }

  /** How far a transmission can reach a car at all [m]. */
  get reach(): number {
    return this.budget.reach;
  }

  send(frame: ChannelFrame<P>, now: number): void {
    const station = this.indexOf.get(frame.from);
    if (station === undefined) throw new Error(`wifi-80211p: no car named ${frame.from}`);
    this.events.push(Math.max(now + (this.opts.stackDelay?.() ?? 0), this.clock), { kind: 'enqueue', station, frame, sentAt: now });
  }

  deliverDue(now: number): Delivery<P>[] {
    this.run(now);
    return this.outcomes.takeDue(now);
  }

  takeChannelBusy(now: number): ChannelBusySample[] {
    this.run(now);
    return this.busyWindows.splice(0, this.busyWindows.length);
  }

  /** Runs every event up to `now`, with the cars where they are now, closing the CBR windows it passes. */
  private run(now: number): void {
    if (now < this.clock) return;
    // called again at the same time (deliverDue, then takeChannelBusy), the cars are where they were
    if (now > this.clock || !this.located) this.locateCars();
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
      if (event.kind === 'enqueue') this.enqueue(event.station, event.frame, event.sentAt, next);
      else if (event.kind === 'access') this.access(event.station, event.token, next);
      else this.endTransmission(event.tx);
    }
    this.clock = now;
  }

  private locateCars(): void {
    const positions = this.opts.positions();
    for (let i = 0; i < this.stations.length; i++) {
      const { x, y } = positions[i];
      const dx = x - this.x[i];
      const dy = y - this.y[i];
      if (this.located) this.odometer[i] += Math.sqrt(dx * dx + dy * dy);
      this.x[i] = x;
      this.y[i] = y;
    }
    this.located = true;
    this.index.rebuild(this.x, this.y);
  }

  private closeWindow(end: number): void {
    for (const s of this.stations) {
      const total = s.busyTimeAt(end);
      this.busyWindows.push({
        car: s.name,
        start: this.windowStart,
        end,
        busyRatio: (total - s.busyAtWindowStart) / CHANNEL_BUSY_WINDOW_S,
      });
      s.busyAtWindowStart = total;
    }
    this.windowStart = end;
    this.windowsClosed++;
  }

  // --- MAC: DCF ---------------------------------------------------------------------------------

  private enqueue(i: number, frame: ChannelFrame<P>, sentAt: number, t: number): void {
    const s = this.stations[i];
    if (s.queued >= QUEUE_MAX_FRAMES) {
      this.outcomes.lostEverywhere(frame, 'queue-drop', t);
      return;
    }
    const wasEmpty = s.queued === 0;
    s.queue.push({ frame, sentAt, enqueuedAt: t });
    if (!wasEmpty || s.transmitting) return;
    // 802.11-2016 10.3.4.2: a frame that finds the medium busy and no backoff running starts one
    if (s.busy && s.backoff === 0) s.backoff = this.drawBackoff();
    if (s.busy) return;
    // as ns-3's DCF: a frame that finds the medium idle and the backoff over waits DIFS from now
    const ifs = s.eifs ? EIFS_S : DIFS_S;
    if (s.idleSince + ifs + s.backoff * SLOT_S <= t) {
      s.backoff = 0;
      this.scheduleAccess(s, t, t + DIFS_S);
    } else this.scheduleAccess(s, t);
  }

  private drawBackoff(): number {
    return Math.floor(this.backoffDraw() * (CW_MIN + 1));
  }

  /** While idle with a frame queued: access once IFS and the backoff have passed (backoff counted from the idle start). */
  private scheduleAccess(s: Station<ChannelFrame<P>, Transmission<P>>, t: number, notBefore = t): void {
    const ifs = s.eifs ? EIFS_S : DIFS_S;
    const at = Math.max(notBefore, s.idleSince + ifs + s.backoff * SLOT_S);
    s.accessAt = at;
    this.events.push(at, { kind: 'access', station: s.index, token: ++s.accessToken });
  }

  private access(i: number, token: number, t: number): void {
    const s = this.stations[i];
    if (token !== s.accessToken || Number.isNaN(s.accessAt)) return;
    s.accessAt = Number.NaN;
    let item = s.dequeue();
    while (item && t - item.enqueuedAt > QUEUE_MAX_DELAY_S) {
      this.outcomes.lostEverywhere(item.frame, 'queue-drop', t);
      item = s.dequeue();
    }
    s.backoff = 0;
    if (item) this.startTransmission(s, item.frame, item.sentAt, t);
  }

  /** Whether the medium just turned busy or idle at a station (kept small to inline: most signals change nothing). */
  private refreshBusy(s: Station<ChannelFrame<P>, Transmission<P>>, t: number): void {
    const busy = s.transmitting !== undefined || s.locked !== undefined || s.sensed > 0 || s.energyMw >= this.busyThresholdMw;
    if (busy !== s.busy) this.busyTurned(s, busy, t);
  }

  /** The medium turns busy or idle at a station: backoff frozen (or an access already committed), CBR time counted. */
  private busyTurned(s: Station<ChannelFrame<P>, Transmission<P>>, busy: boolean, t: number): void {
    s.busy = busy;
    if (busy) {
      s.busySince = t;
      if (!Number.isNaN(s.accessAt) && s.accessAt >= t + PREAMBLE_DETECTION_S) {
        const ifs = s.eifs ? EIFS_S : DIFS_S;
        const counted = Math.floor((t - s.idleSince - ifs) / SLOT_S);
        if (counted > 0) s.backoff = Math.max(0, s.backoff - counted);
        s.accessAt = Number.NaN;
        s.accessToken++;
      } else if (Number.isNaN(s.accessAt)) {
        const ifs = s.eifs ? EIFS_S : DIFS_S;
        const counted = Math.floor((t - s.idleSince - ifs) / SLOT_S);
        if (counted > 0) s.backoff = Math.max(0, s.backoff - counted);
      }
      return;
    }
    s.busyTotal += t - s.busySince;
    s.idleSince = t;
    if (s.queued > 0 && !s.transmitting && Number.isNaN(s.accessAt)) this.scheduleAccess(s, t);
  }

  // --- PHY ----------------------------------------------------------------------------------------

  private startTransmission(s: Station<ChannelFrame<P>, Transmission<P>>, frame: ChannelFrame<P>, sentAt: number, t: number): void {
    const air = frameAirTime(frame.sizeBytes + MAC_FRAME_OVERHEAD_BYTES, this.opts.network.rate);
    const tx = this.spareTransmissions.take(frame, sentAt, s.index, t, t + air);
    const open = tx.open;
    const serial = this.transmissions++;
    let addressees = 0;
    if (frame.broadcast && frame.to.length === this.stations.length - 1) {
      open.fill(1);
      open[s.index] = 0;
      addressees = this.stations.length - 1;
    } else {
      for (const to of frame.to) {
        const r = this.indexOf.get(to);
        if (r === undefined || r === s.index || open[r]) continue;
        open[r] = 1;
        addressees++;
      }
    }
    if (s.locked) this.abortReception(s, t);
    s.transmitting = tx;
    this.refreshBusy(s, t);
    const candidates = this.index.within(s.index, this.x, this.y);
    this.budget.rxPowersDbm(s.index, this.index.found, this.index.distances, candidates, this.cars, this.rxDbm, this.rxLineOfSight);
    const reachedAddressees = this.reachAbove(tx, candidates, serial, t);
    // the addressees it did not reach are below sensitivity; a tally only counts them (nothing reads their `open` again)
    const tally = this.opts.tally;
    if (tally) {
      const beyond = addressees - reachedAddressees;
      if (beyond) tally.outcomes.addBeyondReach(beyond);
    } else {
      for (let r = 0; r < open.length; r++)
        if (open[r] && this.reached[r] !== serial) this.report(tx, r, t, 'below-sensitivity', Number.NaN);
    }
    this.events.push(tx.end, tx.endEvent);
  }

  /**
   * The signal starts at each car the link budget put above the floor; returns how many were owed an
   * outcome. Apart from startTransmission so that the compiler inlines what it calls per receiver.
   */
  private reachAbove(tx: Transmission<P>, candidates: number, serial: number, t: number): number {
    const { found, distances } = this.index;
    const { rxDbm, rxLineOfSight } = this;
    const open = tx.open;
    let reachedAddressees = 0;
    for (let k = 0; k < candidates; k++) {
      const dbm = rxDbm[k];
      if (dbm < SURELY_UNDER_FLOOR_DBM) continue;
      const r = found[k];
      const distance = distances[k];
      const power = dbmToMw(dbm);
      if (power < this.floorMw) continue;
      this.reached[r] = serial;
      const delay = distance / SPEED_OF_LIGHT;
      tx.reach(r, power, delay);
      reachedAddressees += open[r];
      this.signalStarts(this.stations[r], tx, power, dbm, lineOfSightOf(rxLineOfSight[k]), distance, t + delay);
    }
    return reachedAddressees;
  }

  private signalStarts(
    r: Station<ChannelFrame<P>, Transmission<P>>,
    tx: Transmission<P>,
    power: number,
    dbm: number,
    lineOfSight: boolean | undefined,
    distance: number,
    t: number,
  ): void {
    const locked = r.locked;
    if (locked) {
      locked.scoreTo = t;
      locked.energyMw = r.energyMw;
      locked.score();
    }
    r.energyMw += power;
    r.signals++;
    if (power >= this.busyThresholdMw) r.sensed++;
    let lost: LossReason | undefined;
    if (r.transmitting || locked) lost = 'receiver-busy';
    else if (power < this.csThresholdMw) lost = 'below-sensitivity';
    else if (power / (this.noiseMw + r.energyMw - power) < PREAMBLE_SNR)
      lost = power / this.noiseMw >= PREAMBLE_SNR ? 'collision' : 'propagation';
    else {
      const reception = this.receptions[r.index];
      reception.start = t;
      reception.end = t + (tx.end - tx.start);
      reception.powerMw = power;
      reception.powerDbm = dbm;
      reception.lineOfSight = lineOfSight;
      reception.distance = distance;
      r.locked = reception.begin(tx);
    }
    // one call site, so that it inlines (a call per receiver would box the numbers it passes)
    if (lost) this.report(tx, r.index, t, lost, distance, dbm, lineOfSight);
    this.refreshBusy(r, t);
  }

  private endTransmission(tx: Transmission<P>): void {
    const s = this.stations[tx.from];
    s.transmitting = undefined;
    // ns-3 draws a new backoff after every transmission (post-backoff), from CWmin after a broadcast
    s.backoff = this.drawBackoff();
    this.refreshBusy(s, tx.end);
    for (let k = 0; k < tx.reachedCount; k++) this.signalEnds(tx, k);
    // every receiver's outcome is decided and no station holds it any more
    this.spareTransmissions.give(tx);
  }

  /** The end of `tx` reaches its `k`th receiver (by index: numbers passed to a call that is not inlined are boxed). */
  private signalEnds(tx: Transmission<P>, k: number): void {
    const r = this.stations[tx.receivers[k]];
    const power = tx.powersMw[k];
    const t = tx.end + tx.delays[k];
    const locked = r.locked;
    if (locked) {
      locked.scoreTo = t;
      locked.energyMw = r.energyMw;
      locked.score();
    }
    r.signals--;
    if (power >= this.busyThresholdMw) r.sensed--;
    r.energyMw = r.signals === 0 ? 0 : r.energyMw - power;
    if (locked && locked.frame === tx) {
      r.locked = undefined;
      const outcome = locked.outcome(this.decodeDraw());
      r.eifs = outcome !== 'decoded';
      this.report(tx, r.index, t, outcome === 'decoded' ? undefined : outcome, locked.distance, locked.powerDbm, locked.lineOfSight);
    }
    this.refreshBusy(r, t);
  }

  /** A car starts sending while locked on a frame: that reception is lost (ns-3: RECEPTION_ABORTED_BY_TX). */
  private abortReception(s: Station<ChannelFrame<P>, Transmission<P>>, t: number): void {
    const locked = s.locked!;
    s.locked = undefined;
    this.report(locked.frame, s.index, t, 'receiver-busy', locked.distance, locked.powerDbm, locked.lineOfSight);
  }

  /** The outcome of `tx` at receiver `r` (`distance` NaN when not computed), if `r` is one of its addressees still owed one. */
  private report(
    tx: Transmission<P>,
    r: number,
    at: number,
    lost: LossReason | undefined,
    distance: number,
    rxPowerDbm?: number,
    lineOfSight?: boolean,
  ): void {
    if (!tx.open[r]) return;
    tx.open[r] = 0;
    this.outcomes.settle(tx.frame.payload, this.stations[r].name, tx.sentAt, at, lost, distance, rxPowerDbm, lineOfSight);
  }
}
