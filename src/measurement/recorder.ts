import type { ChannelBusySample, LossReason } from '../channel/frames.js';
import type { Odometry } from '../core/control/vehicle-context.js';
import type { VehicleParams } from '../core/physics/types.js';
import { stationIdOf } from '../core/v2x/networking/station-id.js';
import { printed, printedFields } from '../util/print-precision.js';
import type { CollisionEvent, World } from '../world/world.js';
import { ChannelBusyLog } from './channel-busy-log.js';
import { CSV_COLUMNS, type CsvLogName, type RecorderFiles } from './csv-columns.js';
import { CsvLog, csvNumber } from './csv-log.js';
import { DistanceOutcomes } from './distance-outcomes.js';
import { type PairFigures, PairTracker } from './pair-tracker.js';
import { PlatoonFigures, type PlatoonLink } from './platoon.js';
import type { V2VRowFields } from './v2v-row.js';

/** One car at one recorded step: its odometry (the step's time is recorded beside it), its command and its flags. */
export interface CarSample extends Omit<Odometry, 't'> {
  name: string;
  cmdSpeed: number;
  cmdSteer: number;
  braking: boolean;
  collided: boolean;
}

export { type PairFigures, unmeasuredPair } from './pair-tracker.js';

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
  /** It claims to be a standard message and is none (message-gate.ts): dropped at every receiver, in no message figures. */
  malformed?: boolean;
}

/**
 * One (frame, receiver) that did not arrive: a channel's LossReason, `malformed` when the receiver
 * dropped it as no standard message (message-gate.ts), or `not-received` when nothing says why.
 */
export interface V2VLoss {
  id: string;
  from: string;
  to: string;
  type: string;
  sentAt: number;
  sizeBytes: number;
  reason: LossReason | 'not-received' | 'malformed';
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
  /** Each pair's distance, gap and TTC: pairs.csv and the running minima. */
  private readonly pairTracker: PairTracker;
  readonly collisions: CollisionEvent[] = [];
  readonly v2v: V2VRecord[] = [];
  readonly v2vLost: V2VLoss[] = [];
  readonly v2vSent = new Set<string>();
  /** v2v.csv's outcomes by distance when sent: delivery-distance.csv beside it. */
  readonly v2vByDistance = new DistanceOutcomes();
  /** Every frame handed to the channel, in order and without its distances: CAM figures and the channel busy ratio (cam-metrics.ts). */
  readonly v2vFrames: V2VTransmission[] = [];
  /** Transmissions with receivers whose outcome is not known yet: id -> receivers still open. */
  private readonly v2vOpen = new Map<string, { t: V2VTransmission; open: Set<string> }>();
  private readonly settledEarly = new Set<string>();
  readonly events: { t: number; vehicle: string; event: string; detail?: Record<string, unknown> }[] = [];
  /** cbr.csv and its samples: each car's channel busy ratio per window, from channels that keep a medium state. */
  private readonly cbr: ChannelBusyLog;

  private stepsSinceFlush = 0;
  private lastFlushAt = 0;
  private recording?: StepRecording;
  private readonly carIndex: ReadonlyMap<string, number>;

  /** Gap errors and headways of the cars with a `cacc` app (and known bodies). */
  readonly platoon?: PlatoonFigures;

  /**
   * `flushPolicy`: every step in real time; the simulated runtime batches, it runs far faster than a disk.
   * `bodies`: each car's length and width, in carNames order, for the bumper-to-bumper gaps.
   * `fleet`: no v2v.csv (its outcomes are counted elsewhere), and only the pairs near enough for a
   * row in pairs.csv are measured (pair-tracker.ts).
   */
  constructor(
    files: RecorderFiles,
    carNames: readonly string[],
    private readonly flushPolicy: FlushPolicy = FLUSH_EVERY_STEP,
    bodies?: readonly Pick<VehicleParams, 'length' | 'width'>[],
    platoon: readonly PlatoonLink[] = [],
    { fleet = false }: { fleet?: boolean } = {},
  ) {
    this.carIndex = new Map(carNames.map((n, i) => [n, i]));
    if (platoon.length && bodies) this.platoon = new PlatoonFigures(platoon);
    const kept = Object.entries(CSV_COLUMNS).filter(([name]) => !(fleet && name === 'v2v'));
    this.logs = Object.fromEntries(kept.map(([name, columns]) => [name, new CsvLog(files[name as CsvLogName], columns)])) as Record<
      CsvLogName,
      CsvLog
    >;
    this.cbr = new ChannelBusyLog(files.cbr);
    this.pairTracker = new PairTracker(carNames, this.logs.pairs, bodies, fleet);
  }

  /** Every pair's running minima, in pair order (car i with each later car j); in fleets, those of the pairs that came near. */
  get allPairs(): PairFigures[] {
    return this.pairTracker.allPairs;
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
    return this.pairTracker.pairs;
  }

  /** The smallest TTC any pair has reached so far, or null. */
  minTtc(): number | null {
    return this.pairTracker.minTtc();
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
    const step = this.pairTracker.record(t, cars);
    this.platoon?.record(
      (a, b) => this.pairTracker.gapOf(a, b, step),
      (car) => cars[this.carIndex.get(car)!].v,
    );
    this.recording?.step(t, cars);
    if (++this.stepsSinceFlush >= this.flushPolicy.everySteps && this.flushIsDue()) this.flush();
  }

  recordCollisions(events: readonly CollisionEvent[]): void {
    for (const e of events) {
      this.collisions.push(e);
      this.logs.collisions.add([e.t, e.a, e.b, e.speedA, e.speedB]);
      this.pairTracker.collided(e.a, e.b, e.t);
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
      ...(t.malformed ? { malformed: true } : {}),
    });
    // In emulation a receipt can be reported before its send: those receivers are settled already.
    const open = new Set(t.to.filter((to) => !this.settledEarly.delete(`${t.id}\0${to}`)));
    if (open.size) this.v2vOpen.set(t.id, { t, open });
  }

  /** One row per (frame, receiver), written as soon as its fate is known. */
  recordReceived(r: V2VRecord): void {
    this.v2v.push(r);
    this.v2vRow(r, r.receivedAt, 'delivered', this.settle(r.id, r.to));
  }

  recordLost(l: V2VLoss): void {
    this.v2vLost.push(l);
    this.v2vRow(l, undefined, l.reason, this.settle(l.id, l.to));
  }

  private readonly stationIds = new Map<string, number>();

  /** A car's ITS station ID (what its CAMs, DENMs and CPMs carry, and v2v.pcap's addresses), hashed once. */
  private stationId(car: string): number {
    let id = this.stationIds.get(car);
    if (id === undefined) this.stationIds.set(car, (id = stationIdOf(car)));
    return id;
  }

  /** The row's fields for a recording, filled in place: it copies what it keeps. */
  private readonly rowFields = {} as V2VRowFields;

  /** One v2v.csv row (cell by cell: thousands a run, no array each) and the recording's messages of it. */
  private v2vRow(f: Omit<V2VLoss, 'reason'>, receivedAt: number | undefined, outcome: string, distance: number | undefined): void {
    const row = this.logs.v2v.cell(f.id).cell(f.from).cell(f.to).cell(f.type).number(f.sentAt);
    if (receivedAt === undefined) row.cell('').cell('');
    else row.number(receivedAt).number((receivedAt - f.sentAt) * 1000);
    row.number(f.sizeBytes).cell(outcome);
    if (distance === undefined) row.cell(undefined);
    else row.number(distance);
    row.cell(f.lineOfSight === undefined ? undefined : String(f.lineOfSight));
    if (f.rxPowerDbm === undefined) row.cell(undefined);
    else row.number(f.rxPowerDbm);
    row.number(this.stationId(f.from)).number(this.stationId(f.to));
    row.endRow();
    if (outcome !== 'run-ended') this.v2vByDistance.add(outcome, distance);
    if (!this.recording) return;
    const fields = this.rowFields;
    fields.id = f.id;
    fields.from = f.from;
    fields.to = f.to;
    fields.type = f.type;
    fields.sentS = csvNumber(f.sentAt);
    fields.receivedS = receivedAt === undefined ? 0 : csvNumber(receivedAt);
    fields.sizeBytes = csvNumber(f.sizeBytes);
    fields.outcome = outcome;
    fields.distanceM = distance === undefined ? NaN : csvNumber(distance);
    fields.lineOfSight = f.lineOfSight === undefined ? -1 : f.lineOfSight ? 1 : 0;
    fields.rxPowerDbm = f.rxPowerDbm === undefined ? NaN : csvNumber(f.rxPowerDbm);
    this.recording.v2vRow(fields);
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

  /** An app's or the runtime's event, its time and numbers at their printed precision (util/print-precision.ts). */
  recordEvent(t: number, vehicle: string, event: string, detail?: Record<string, unknown>): void {
    const at = printed(t, 's');
    const shown = detail && printedFields(detail);
    this.events.push({ t: at, vehicle, event, detail: shown });
    this.logs.events.add([at, vehicle, event, shown ? JSON.stringify(shown) : '']);
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
