/** The sensing window: a car selects from what it heard over the last 1000 subframes (TS 36.213 14.1.1.6). */
export const SENSING_WINDOW_SUBFRAMES = 1000;
/** The exclusion threshold is raised in steps of 3 dB (TS 36.213 14.1.1.6 step 7)... */
const THRESHOLD_STEP_DB = 3;
/** ...until this share of the candidates remains, and the ones kept for the random choice are this share, lowest S-RSSI first (steps 7 and 8). */
const CANDIDATE_SHARE = 0.2;
/** T1: the earliest slot after the packet a selection may pick (TS 36.213 14.1.1.6 allows up to 4 subframes). */
const SELECTION_T1 = 1;

/** The other resources one SCI announces besides the one it is sent on (NR: a packet's retransmissions, TS 38.212 SCI format 1-A). */
export interface AnnouncedResources {
  slots: number[];
  firsts: number[];
}

/** A chosen resource: the subframe of the first transmission and the first of its subchannels. */
export interface SelectedResource {
  subframe: number;
  first: number;
}

/**
 * What each car heard over the sensing window, as TS 36.213 14.1.1.6 uses it: the last SCI of every
 * other car (where it transmitted, what it reserves, at what PSSCH-RSRP) and the S-RSSI of every
 * subchannel in every subframe (kept in a ring of 1000 subframes per car; a slot written in an older
 * subframe reads as nothing received). Flat arrays, so that recording a reception allocates nothing.
 */
export class SensingMemory {
  private readonly heardAt: Int32Array;
  private readonly heardFirst: Uint8Array;
  private readonly heardLength: Uint8Array;
  private readonly heardPeriod: Int32Array;
  private readonly heardRsrp: Float32Array;
  private readonly heardMoreCount: Uint8Array;
  private readonly heardMoreSlot: Int32Array;
  private readonly heardMoreFirst: Uint8Array;
  private readonly rssiMw: Float32Array;
  private readonly stamp: Int32Array;
  /** Each car's own transmissions in the window: it heard nothing in those subframes (step 5). */
  private readonly own: number[][];
  private excluded = new Uint8Array(0);
  private metric = new Float64Array(0);
  /** Per subframe of the window and subchannel: its S-RSSI summed over the looks back (step 8). */
  private cellRssi = new Float64Array(0);
  private rowLooks = new Int32Array(0);
  private order = new Int32Array(0);
  private readonly senders: number[] = [];

  /**
   * `window`: the sensing window [slots] (LTE 1000 subframes; NR 1100 ms of slots, TS 38.214 8.1.4);
   * `t2Max`: the latest slot of a selection window (100 ms of slots); `announced`: resources one SCI
   * can announce besides its own (0 in LTE; NR: up to 2, sl-MaxNumPerReserve 3); `rankByRssi`: keep
   * the 20 % of candidates with the lowest S-RSSI for the random choice (LTE, TS 36.213 14.1.1.6 step
   * 8), or choose among every candidate left after the exclusion (NR, TS 38.214 8.1.4 and TS 38.321
   * 5.22.1.1: the MAC picks at random from the set the PHY reports).
   */
  constructor(
    private readonly cars: number,
    private readonly subchannels: number,
    private readonly window = SENSING_WINDOW_SUBFRAMES,
    private readonly t2Max = 100,
    private readonly announced = 0,
    private readonly rankByRssi = true,
  ) {
    this.heardMoreCount = new Uint8Array(cars * cars);
    this.heardMoreSlot = new Int32Array(cars * cars * announced);
    this.heardMoreFirst = new Uint8Array(cars * cars * announced);
    this.heardAt = new Int32Array(cars * cars).fill(-window - 1);
    this.heardFirst = new Uint8Array(cars * cars);
    this.heardLength = new Uint8Array(cars * cars);
    this.heardPeriod = new Int32Array(cars * cars);
    this.heardRsrp = new Float32Array(cars * cars);
    this.rssiMw = new Float32Array(cars * window * subchannels);
    this.stamp = new Int32Array(cars * window).fill(-1);
    this.own = Array.from({ length: cars }, () => []);
  }

  /** `rx` decoded the SCI of `tx` in `subframe`: its subchannels, its reservation interval (0: none), PSSCH-RSRP and the other resources it announces. */
  recordSci(
    rx: number,
    tx: number,
    subframe: number,
    first: number,
    length: number,
    periodSubframes: number,
    rsrpDbm: number,
    more?: AnnouncedResources,
  ): void {
    const k = rx * this.cars + tx;
    if (this.announced) {
      const count = Math.min(this.announced, more?.slots.length ?? 0);
      this.heardMoreCount[k] = count;
      for (let i = 0; i < count; i++) {
        this.heardMoreSlot[k * this.announced + i] = more!.slots[i];
        this.heardMoreFirst[k * this.announced + i] = more!.firsts[i];
      }
    }
    this.heardAt[k] = subframe;
    this.heardFirst[k] = first;
    this.heardLength[k] = length;
    this.heardPeriod[k] = periodSubframes;
    this.heardRsrp[k] = rsrpDbm;
  }

  /** `car` received `energyMw[offset + s]` on each subchannel s in `subframe` (its S-RSSI, noise left out). */
  recordRssi(car: number, subframe: number, energyMw: Float64Array, offset: number): void {
    const slot = subframe % this.window;
    this.stamp[car * this.window + slot] = subframe;
    const base = (car * this.window + slot) * this.subchannels;
    for (let s = 0; s < this.subchannels; s++) this.rssiMw[base + s] = energyMw[offset + s];
  }

  recordOwnTransmission(car: number, subframe: number): void {
    const own = this.own[car];
    own.push(subframe);
    if (own.length > 64) own.splice(0, own.length - 64);
  }

  /**
   * TS 36.213 14.1.1.6 for `car` with a packet in `subframe` needing `length` subchannels, reserving
   * every `period` subframes: the candidates of the selection window [n + T1, n + T2], less those in
   * subframes it transmitted in, less those another car's SCI reserves with an RSRP over the threshold
   * (raised 3 dB at a time until 20 % remain), then the 20 % of all with the lowest average S-RSSI,
   * one of them at random. `avoid`: slots already chosen for the same packet (its other copies).
   */
  select(
    car: number,
    subframe: number,
    length: number,
    period: number,
    budgetSubframes: number,
    thresholdDbm: number,
    draw: () => number,
    avoid?: readonly number[],
  ): SelectedResource {
    const windowStart = subframe + SELECTION_T1;
    const windowLength = Math.max(1, Math.min(this.t2Max, budgetSubframes) - SELECTION_T1 + 1);
    const positions = this.subchannels - length + 1;
    const total = windowLength * positions;
    if (this.excluded.length < total) {
      this.excluded = new Uint8Array(total);
      this.metric = new Float64Array(total);
      this.order = new Int32Array(total);
    }
    const since = subframe - this.window;
    const wanted = Math.ceil(CANDIDATE_SHARE * total);
    this.heardSenders(car, since, subframe);
    let threshold = thresholdDbm;
    let remaining = 0;
    for (let attempt = 0; attempt < 64; attempt++, threshold += THRESHOLD_STEP_DB) {
      remaining = this.exclude(car, since, windowStart, windowLength, positions, length, period, threshold, avoid);
      if (remaining >= wanted) break;
    }
    if (!this.rankByRssi) {
      let pick = Math.floor(draw() * remaining);
      for (let c = 0; c < total; c++) {
        if (this.excluded[c]) continue;
        if (pick-- === 0) return { subframe: windowStart + Math.floor(c / positions), first: c % positions };
      }
      const any = Math.floor(draw() * total);
      return { subframe: windowStart + Math.floor(any / positions), first: any % positions };
    }
    this.sumRssi(car, windowStart, windowLength, period, since);
    let kept = 0;
    for (let c = 0; c < total; c++) {
      if (this.excluded[c]) continue;
      const row = Math.floor(c / positions);
      const base = row * this.subchannels + (c % positions);
      let sum = 0;
      for (let s = 0; s < length; s++) sum += this.cellRssi[base + s];
      this.order[kept] = c;
      this.metric[kept++] = this.rowLooks[row] ? sum / (this.rowLooks[row] * length) : 0;
    }
    const chosen = kept ? this.lowestAtRandom(kept, Math.min(kept, wanted), draw) : Math.floor(draw() * total);
    return { subframe: windowStart + Math.floor(chosen / positions), first: chosen % positions };
  }

  /**
   * One of the `pool` kept candidates with the lowest metric, uniformly: those under the pool's
   * highest metric, and as many of the candidates at it (often all alike: nothing heard) as fill the
   * pool, a random choice among them.
   */
  private lowestAtRandom(kept: number, pool: number, draw: () => number): number {
    const cut = this.metric.slice(0, kept).sort()[pool - 1];
    let below = 0;
    let ties = 0;
    for (let i = 0; i < kept; i++) {
      if (this.metric[i] < cut) below++;
      else if (this.metric[i] === cut) ties++;
    }
    const pick = Math.floor(draw() * pool);
    let target = pick < below ? pick : Math.floor(draw() * ties);
    const wanted = pick < below ? 'below' : 'tie';
    for (let i = 0; i < kept; i++) {
      const m = this.metric[i];
      if (wanted === 'below' ? m < cut : m === cut) {
        if (target === 0) return this.order[i];
        target--;
      }
    }
    return this.order[0];
  }

  /** The cars whose SCI `car` decoded within the sensing window, announcing a reservation or (period 0) resources still ahead. */
  private heardSenders(car: number, since: number, now: number): void {
    this.senders.length = 0;
    const row = car * this.cars;
    for (let s = 0; s < this.cars; s++) {
      const k = row + s;
      if (s === car || this.heardAt[k] < since) continue;
      if (this.heardPeriod[k] > 0 || (this.heardMoreCount[k] && this.heardMoreSlot[k * this.announced + this.heardMoreCount[k] - 1] > now))
        this.senders.push(s);
    }
  }

  /** Marks the excluded candidates at `thresholdDbm`; returns how many remain. */
  private exclude(
    car: number,
    since: number,
    windowStart: number,
    windowLength: number,
    positions: number,
    length: number,
    period: number,
    thresholdDbm: number,
    avoid: readonly number[] | undefined,
  ): number {
    const total = windowLength * positions;
    this.excluded.fill(0, 0, total);
    const excludeSubframe = (y: number) => this.excluded.fill(1, (y - windowStart) * positions, (y - windowStart + 1) * positions);
    for (const y of avoid ?? []) if (y >= windowStart && y < windowStart + windowLength) excludeSubframe(y);
    for (const z of this.own[car]) {
      if (z < since) continue;
      for (let y = windowStart; y < windowStart + windowLength; y++) if ((y - z) % period === 0) excludeSubframe(y);
    }
    const row = car * this.cars;
    for (const s of this.senders) {
      const k = row + s;
      if (this.heardRsrp[k] <= thresholdDbm) continue;
      const every = this.heardPeriod[k];
      const size = this.heardLength[k];
      this.excludeReserved(this.heardAt[k], this.heardFirst[k], size, every, windowStart, windowLength, positions, length, period);
      for (let i = 0; i < this.heardMoreCount[k]; i++) {
        const at = this.heardMoreSlot[k * this.announced + i];
        this.excludeReserved(
          at,
          this.heardMoreFirst[k * this.announced + i],
          size,
          every,
          windowStart,
          windowLength,
          positions,
          length,
          period,
        );
      }
    }
    let remaining = 0;
    for (let c = 0; c < total; c++) remaining += 1 - this.excluded[c];
    return remaining;
  }

  /** Marks the candidates a resource at `at`, reserved again every `every` slots (0: once), lands on or overlaps. */
  private excludeReserved(
    at: number,
    firstHeard: number,
    size: number,
    every: number,
    windowStart: number,
    windowLength: number,
    positions: number,
    length: number,
    period: number,
  ): void {
    const lo = Math.max(0, firstHeard - length + 1);
    const hi = Math.min(positions - 1, firstHeard + size - 1);
    const mark = (y: number) => {
      const base = (y - windowStart) * positions;
      for (let f = lo; f <= hi; f++) this.excluded[base + f] = 1;
    };
    if (every === 0) {
      if (at >= windowStart && at < windowStart + windowLength) mark(at);
    } else if (every === period) {
      // the same interval as ours: its occurrences in the window are the candidates it lands on
      for (let y = windowStart + ((((at - windowStart) % every) + every) % every); y < windowStart + windowLength; y += every) mark(y);
    } else for (let y = windowStart; y < windowStart + windowLength; y++) if (this.reservedAgain(y, at, every, period)) mark(y);
  }

  /** Whether a reservation heard at `at` every `every` subframes falls on candidate `y` or one of its repeats every `period`. */
  private reservedAgain(y: number, at: number, every: number, period: number): boolean {
    for (let j = 0; j * period < this.window; j++) {
      const d = y + j * period - at;
      if (d > 0 && d % every === 0) return true;
    }
    return false;
  }

  /**
   * Sums each window subframe's S-RSSI per subchannel over the subframes one reservation step back
   * within the sensing window (step 8's metric, before the average), and how many looks each row has.
   */
  private sumRssi(car: number, windowStart: number, windowLength: number, period: number, since: number): void {
    const S = this.subchannels;
    if (this.cellRssi.length < windowLength * S) this.cellRssi = new Float64Array(windowLength * S);
    if (this.rowLooks.length < windowLength) this.rowLooks = new Int32Array(windowLength);
    this.cellRssi.fill(0, 0, windowLength * S);
    const step = Math.min(period, this.t2Max);
    const now = since + this.window;
    for (let i = 0; i < windowLength; i++) {
      const y = windowStart + i;
      let count = 0;
      for (let past = y - step; past >= since; past -= step) {
        if (past >= now) continue;
        count++;
        const slot = past % this.window;
        if (past < 0 || this.stamp[car * this.window + slot] !== past) continue;
        const base = (car * this.window + slot) * S;
        for (let s = 0; s < S; s++) this.cellRssi[i * S + s] += this.rssiMw[base + s];
      }
      this.rowLooks[i] = count;
    }
  }
}
