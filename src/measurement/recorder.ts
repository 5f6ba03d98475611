import type { ChannelBusySample, LossReason } from '../channel/frames.js';
import type { Odometry } from '../core/control/vehicle-context.js';
import { bodyGap, type PlacedBody, placeBody } from '../core/physics/footprint.js';
import { centreDistance, closingSpeed, footprintOverlapTtc } from '../core/physics/ttc.js';
import type { VehicleParams } from '../core/physics/types.js';
import type { CollisionEvent, World } from '../world/world.js';
import { ChannelBusyLog } from './channel-busy-log.js';
import { CSV_COLUMNS, type CsvLogName, type RecorderFiles } from './csv-columns.js';
import { CsvLog } from './csv-log.js';
import { BOUND_MARGIN, PAIR_ROW_DISTANCE_M, PAIR_ROW_TTC_S, pairRowKept, ttcLowerBound } from './pair-rows.js';
import { PlatoonFigures, type PlatoonLink } from './platoon.js';
import { type V2VRowFields, v2vRowFields } from './v2v-row.js';

/** One car at one recorded step: its odometry (the step's time is recorded beside it), its command and its flags. */
export interface CarSample extends Omit<Odometry, 't'> {
  name: string;
  cmdSpeed: number;
  cmdSteer: number;
  braking: boolean;
  collided: boolean;
}

export interface PairFigures {
  a: string;
  b: string;
  min_distance_m: number;
  min_distance_t_s: number;
  /** Smallest bumper-to-bumper gap (0 on contact); null when the cars' bodies are not known. */
  min_gap_m: number | null;
  min_ttc_s: number | null;
  min_ttc_t_s: number | null;
  collision: boolean;
  first_collision_t_s: number | null;
}

/** A pair's figures before its first step: nothing measured yet. */
export const unmeasuredPair = (a: string, b: string): PairFigures => ({
  a,
  b,
  min_distance_m: Infinity,
  min_distance_t_s: 0,
  min_gap_m: null,
  min_ttc_s: null,
  min_ttc_t_s: null,
  collision: false,
  first_collision_t_s: null,
});

export interface V2VRecord {
  id: string;
  from: string;
  to: string;
  type: string;
  sentAt: number;
  receivedAt: number;
  sizeBytes: number;
  rxPowerDbm?: number;
  lineOfSight?: boolean;
}

/** A frame handed to the channel: the receivers it was meant for, and whether it is a GN packet. */
export interface V2VTransmission {
  id: string;
  from: string;
  to: readonly string[];
  type: string;
  sentAt: number;
  sizeBytes: number;
  /** Centre distance to each receiver when the frame was sent [m]. */
  distances?: ReadonlyMap<string, number>;
  /** The frame's bytes are a GeoNetworking packet (a CAM); else a UDP payload that v2v.pcap wraps in one. */
  gnPacket?: boolean;
}

/** One (frame, receiver) that did not arrive: a channel's LossReason, or `not-received` when nothing says why. */
export interface V2VLoss {
  id: string;
  from: string;
  to: string;
  type: string;
  sentAt: number;
  sizeBytes: number;
  reason: LossReason | 'not-received';
  rxPowerDbm?: number;
  lineOfSight?: boolean;
}

/** What a run recording (run.mcap) takes from the recorder as the run goes. */
export interface StepRecording {
  step(t: number, cars: readonly CarSample[]): void;
  row(file: 'collisions' | 'events' | 'scans', cells: string[]): void;
  /** A v2v.csv row, as its reader gets it back: thousands a run, so not as text. */
  v2vRow(row: V2VRowFields): void;
}

/**
 * When the per-step CSV rows go to their files: after `everySteps` steps and, when set, at least
 * `atLeastMsApart` milliseconds of wall time after the last write (`now`: a monotonic clock in ms).
 */
export interface FlushPolicy {
  everySteps: number;
  atLeastMsApart?: number;
  now?: () => number;
}

export const FLUSH_EVERY_STEP: FlushPolicy = Object.freeze({ everySteps: 1 });

const monotonicMs = () => performance.now();

/**
 * The thesis's measurement module: per step each car's state, per pair centre distance and TTC
 * (Eq. 3.7, only while closing), collision events, V2V receipts and app events — each written to
 * its CSV as the run goes — and the running extremes the summary reports.
 */
export class Recorder {
  private readonly logs: Record<CsvLogName, CsvLog>;
  /** Every pair's running minima, in pair order (car i with each later car j). */
  readonly allPairs: PairFigures[] = [];
  /** 1 for the pairs that have had a row in pairs.csv (pair-rows.ts). */
  private readonly rowed: Uint8Array;
  readonly collisions: CollisionEvent[] = [];
  readonly v2v: V2VRecord[] = [];
  readonly v2vLost: V2VLoss[] = [];
  readonly v2vSent = new Set<string>();
  /** Every frame handed to the channel, in order and without its distances: CAM figures and the channel busy ratio (cam-metrics.ts). */
  readonly v2vFrames: V2VTransmission[] = [];
  /** Transmissions with receivers whose outcome is not known yet: id -> receivers still open. */
  private readonly v2vOpen = new Map<string, { t: V2VTransmission; open: Set<string> }>();
  private readonly settledEarly = new Set<string>();
  readonly events: { t: number; vehicle: string; event: string; detail?: Record<string, unknown> }[] = [];
  /** cbr.csv and its samples: each car's channel busy ratio per window, from channels that keep a medium state. */
  private readonly cbr: ChannelBusyLog;
  private pairIndex = new Map<string, PairFigures>();

  private stepsSinceFlush = 0;
  private lastFlushAt = 0;
  private recording?: StepRecording;

  private readonly placed: PlacedBody[] = [];
  private readonly carIndex: ReadonlyMap<string, number>;
  /** A pair's gap at the step gapStep says; gaps are taken only where they can matter. */
  private readonly stepGaps: Float64Array;
  private readonly gapStep: Int32Array;
  private steps = 0;
  /** Gap errors and headways of the cars with a `cacc` app (and known bodies). */
  readonly platoon?: PlatoonFigures;

  /**
   * `flushPolicy`: every step in real time; the simulated runtime batches, it runs far faster than a disk.
   * `bodies`: each car's length and width, in carNames order, for the bumper-to-bumper gaps.
   */
  constructor(
    files: RecorderFiles,
    carNames: readonly string[],
    private readonly flushPolicy: FlushPolicy = FLUSH_EVERY_STEP,
    private readonly bodies?: readonly Pick<VehicleParams, 'length' | 'width'>[],
    platoon: readonly PlatoonLink[] = [],
  ) {
    this.carIndex = new Map(carNames.map((n, i) => [n, i]));
    if (platoon.length && bodies) this.platoon = new PlatoonFigures(platoon);
    this.logs = Object.fromEntries(
      Object.entries(CSV_COLUMNS).map(([name, columns]) => [name, new CsvLog(files[name as CsvLogName], columns)]),
    ) as Record<CsvLogName, CsvLog>;
    this.cbr = new ChannelBusyLog(files.cbr);
    this.rowed = new Uint8Array((carNames.length * (carNames.length - 1)) / 2);
    this.stepGaps = new Float64Array(this.rowed.length);
    this.gapStep = new Int32Array(this.rowed.length).fill(-1);
    for (let i = 0; i < carNames.length; i++) {
      for (let j = i + 1; j < carNames.length; j++) {
        const p = unmeasuredPair(carNames[i], carNames[j]);
        this.allPairs.push(p);
        this.pairIndex.set(`${p.a}\0${p.b}`, p);
      }
    }
  }

  private worldSamples: CarSample[] = [];

  /** Samples every car of the world at its current time (reusing one sample object per car) and records them. */
  recordWorld(world: World, isBraking: (car: string) => boolean): readonly CarSample[] {
    world.cars.forEach((c, i) => {
      const s = (this.worldSamples[i] ??= { name: c.spec.name } as CarSample);
      s.x = c.state.x;
      s.y = c.state.y;
      s.yaw = c.state.yaw;
      s.v = c.state.v;
      s.steer = c.state.steer;
      s.yawRate = c.state.yawRate;
      s.cmdSpeed = c.command.speed;
      s.cmdSteer = c.command.steer;
      s.braking = isBraking(c.spec.name);
      s.collided = c.collided;
    });
    this.recordStep(world.time, this.worldSamples);
    return this.worldSamples;
  }

  /** The pairs that have had a row in pairs.csv or collided, in pair order: those summary.json lists. */
  get pairs(): PairFigures[] {
    return this.allPairs.filter((p, k) => this.rowed[k] === 1 || p.collision);
  }

  /** The smallest TTC any pair has reached so far, or null. */
  minTtc(): number | null {
    return this.allPairs.reduce<number | null>(
      (m, p) => (p.min_ttc_s === null ? m : m === null ? p.min_ttc_s : Math.min(m, p.min_ttc_s)),
      null,
    );
  }

  recordStep(t: number, cars: readonly CarSample[]): void {
    const vehicles = this.logs.vehicles;
    for (const c of cars) {
      vehicles.number(t).cell(c.name).number(c.x).number(c.y).number(c.yaw).number(c.v).number(c.steer).number(c.yawRate);
      vehicles
        .number(c.cmdSpeed)
        .number(c.cmdSteer)
        .number(c.braking ? 1 : 0)
        .number(c.collided ? 1 : 0)
        .endRow();
    }
    const bodies = this.bodies;
    if (bodies) cars.forEach((c, i) => (this.placed[i] = placeBody(c, bodies[i], this.placed[i])));
    const step = this.steps++;
    let k = 0;
    for (let i = 0; i < cars.length; i++) {
      const a = cars[i];
      const ra = bodies ? this.placed[i].radius : 0;
      for (let j = i + 1; j < cars.length; j++, k++) {
        const b = cars[j];
        const pair = this.allPairs[k];
        const d = centreDistance(a, b);
        if (d < pair.min_distance_m) {
          pair.min_distance_m = d;
          pair.min_distance_t_s = t;
        }
        const rb = bodies ? this.placed[j].radius : 0;
        const near = d <= PAIR_ROW_DISTANCE_M;
        // The TTC is taken only where it can give a row or a new minimum for the pair.
        const bound = ttcLowerBound(d, ra, rb, a.v, b.v) / (1 + BOUND_MARGIN);
        const ttcMatters = near || pair.min_ttc_s === null || bound <= PAIR_ROW_TTC_S || bound <= pair.min_ttc_s;
        const closing = ttcMatters ? closingSpeed(a, b) : 0;
        const ttc = ttcMatters ? this.ttcOf(a, b, i, j, d, closing) : undefined;
        if (ttc !== undefined && (pair.min_ttc_s === null || ttc < pair.min_ttc_s)) {
          pair.min_ttc_s = ttc;
          pair.min_ttc_t_s = t;
        }
        const kept = pairRowKept(d, ttc);
        // The gap is at least the distance between the bodies' circumscribed circles.
        const gap = bodies && (kept || pair.min_gap_m === null || d - ra - rb < pair.min_gap_m) ? this.gapAt(k, i, j, step) : undefined;
        if (gap !== undefined && (pair.min_gap_m === null || gap < pair.min_gap_m)) pair.min_gap_m = gap;
        if (!kept) continue;
        this.rowed[k] = 1;
        const row = this.logs.pairs.number(t).cell(pair.a).cell(pair.b).number(d);
        (gap === undefined ? row.cell(undefined) : row.number(gap)).number(closing);
        (ttc === undefined ? row.cell(undefined) : row.number(ttc)).endRow();
      }
    }
    this.platoon?.record(
      (a, b) => this.gapOf(a, b, step),
      (car) => cars[this.carIndex.get(car)!].v,
    );
    this.recording?.step(t, cars);
    if (++this.stepsSinceFlush >= this.flushPolicy.everySteps && this.flushIsDue()) this.flush();
  }

  private ttcOf(a: CarSample, b: CarSample, i: number, j: number, d: number, closing: number): number | undefined {
    const bodies = this.bodies;
    // footprint overlap when the cars' sizes are known; Eq. 3.7 (centre distance over closing speed) otherwise
    return bodies ? footprintOverlapTtc(a, bodies[i], b, bodies[j]) : closing > 1e-9 ? d / closing : undefined;
  }

  /** Pair k's bumper-to-bumper gap at this step, computed once. */
  private gapAt(k: number, i: number, j: number, step: number): number {
    if (this.gapStep[k] !== step) {
      this.stepGaps[k] = bodyGap(this.placed[i], this.placed[j]);
      this.gapStep[k] = step;
    }
    return this.stepGaps[k];
  }

  private gapOf(a: string, b: string, step: number): number {
    let i = this.carIndex.get(a)!;
    let j = this.carIndex.get(b)!;
    if (i > j) [i, j] = [j, i];
    return this.gapAt(this.pairOf(a, b), i, j, step);
  }

  /** Index in `allPairs` of two cars, in either order. */
  private pairOf(a: string, b: string): number {
    let i = this.carIndex.get(a)!;
    let j = this.carIndex.get(b)!;
    if (i > j) [i, j] = [j, i];
    const n = this.carIndex.size;
    return i * n - (i * (i + 1)) / 2 + (j - i - 1);
  }

  recordCollisions(events: readonly CollisionEvent[]): void {
    for (const e of events) {
      this.collisions.push(e);
      this.logs.collisions.add([e.t, e.a, e.b, e.speedA, e.speedB]);
      const pair = this.pairIndex.get(`${e.a}\0${e.b}`) ?? this.pairIndex.get(`${e.b}\0${e.a}`);
      if (pair && !pair.collision) {
        pair.collision = true;
        pair.first_collision_t_s = e.t;
      }
    }
  }

  recordSent(t: V2VTransmission): void {
    this.v2vSent.add(t.id);
    this.v2vFrames.push({
      id: t.id,
      from: t.from,
      to: t.to,
      type: t.type,
      sentAt: t.sentAt,
      sizeBytes: t.sizeBytes,
      ...(t.gnPacket ? { gnPacket: true } : {}),
    });
    // In emulation a receipt can be reported before its send: those receivers are settled already.
    const open = new Set(t.to.filter((to) => !this.settledEarly.delete(`${t.id}\0${to}`)));
    if (open.size) this.v2vOpen.set(t.id, { t, open });
  }

  /** One row per (frame, receiver), written as soon as its fate is known. */
  recordReceived(r: V2VRecord): void {
    this.v2v.push(r);
    const distance = this.settle(r.id, r.to);
    this.logs.v2v.add([
      r.id,
      r.from,
      r.to,
      r.type,
      r.sentAt,
      r.receivedAt,
      (r.receivedAt - r.sentAt) * 1000,
      r.sizeBytes,
      'delivered',
      distance,
      r.lineOfSight,
      r.rxPowerDbm,
    ]);
    this.recording?.v2vRow(
      v2vRowFields({
        id: r.id,
        from: r.from,
        to: r.to,
        type: r.type,
        sentAt: r.sentAt,
        receivedAt: r.receivedAt,
        sizeBytes: r.sizeBytes,
        outcome: 'delivered',
        distance,
        lineOfSight: r.lineOfSight,
        rxPowerDbm: r.rxPowerDbm,
      }),
    );
  }

  recordLost(l: V2VLoss): void {
    this.v2vLost.push(l);
    const distance = this.settle(l.id, l.to);
    this.logs.v2v.add([l.id, l.from, l.to, l.type, l.sentAt, '', '', l.sizeBytes, l.reason, distance, l.lineOfSight, l.rxPowerDbm]);
    this.recording?.v2vRow(
      v2vRowFields({
        id: l.id,
        from: l.from,
        to: l.to,
        type: l.type,
        sentAt: l.sentAt,
        sizeBytes: l.sizeBytes,
        outcome: l.reason,
        distance,
        lineOfSight: l.lineOfSight,
        rxPowerDbm: l.rxPowerDbm,
      }),
    );
  }

  /** A loss the channel reported by frame id and receiver alone (emulation): recorded if that receiver is still open. */
  recordLossOf(id: string, to: string, reason: LossReason, radio: { rxPowerDbm?: number; lineOfSight?: boolean } = {}): void {
    const entry = this.v2vOpen.get(id);
    if (!entry?.open.has(to)) return;
    const t = entry.t;
    this.recordLost({ id, from: t.from, to, type: t.type, sentAt: t.sentAt, sizeBytes: t.sizeBytes, reason, ...radio });
  }

  /** At the end of a run: every receiver whose frame neither arrived nor was reported lost. */
  closeTransmissions(reason: V2VLoss['reason']): void {
    for (const { t, open } of [...this.v2vOpen.values()]) {
      for (const to of [...open])
        this.recordLost({ id: t.id, from: t.from, to, type: t.type, sentAt: t.sentAt, sizeBytes: t.sizeBytes, reason });
    }
  }

  private settle(id: string, to: string): number | undefined {
    const entry = this.v2vOpen.get(id);
    if (!entry) {
      if (!this.v2vSent.has(id)) this.settledEarly.add(`${id}\0${to}`);
      return undefined;
    }
    entry.open.delete(to);
    if (!entry.open.size) this.v2vOpen.delete(id);
    return entry.t.distances?.get(to);
  }

  recordEvent(t: number, vehicle: string, event: string, detail?: Record<string, unknown>): void {
    this.events.push({ t, vehicle, event, detail });
    this.logs.events.add([t, vehicle, event, detail ? JSON.stringify(detail) : '']);
  }

  /** Each car's channel busy ratio for windows that have ended, as the channel measured them. */
  recordChannelBusy(samples: readonly ChannelBusySample[]): void {
    this.cbr.add(samples);
  }

  get cbrSamples(): readonly ChannelBusySample[] {
    return this.cbr.samples;
  }

  /** Lets a recording see each step's cars and every row of the rarer logs as it is written. */
  attachRecording(recording: StepRecording): void {
    this.recording = recording;
    for (const kind of ['collisions', 'events'] as const) this.logs[kind].onRow = (cells) => recording.row(kind, cells);
  }

  private flushIsDue(): boolean {
    const { atLeastMsApart, now = monotonicMs } = this.flushPolicy;
    return atLeastMsApart === undefined || now() - this.lastFlushAt >= atLeastMsApart;
  }

  flush(): void {
    this.stepsSinceFlush = 0;
    if (this.flushPolicy.atLeastMsApart !== undefined) this.lastFlushAt = (this.flushPolicy.now ?? monotonicMs)();
    for (const log of Object.values(this.logs)) log.flush();
    this.cbr.flush();
  }

  close(): void {
    for (const log of Object.values(this.logs)) log.close();
    this.cbr.close();
  }
}
