import { type BodyFigures, BodyReports, bodyInvalidReasons } from '../../../measurement/body-reports.js';
import type { ResolvedScenario } from '../../../scenario/resolved.js';
import { poseAt } from '../../../world/body-pose.js';
import type { World } from '../../../world/world.js';
import type { BridgeServer } from '../../rosbridge/bridge-server.js';
import { type BodySyncProbe, bodySyncReplySchema, parseJsonData, TOPICS } from '../../rosbridge/control-topics.js';
import { ProtocolError } from '../../rosbridge/protocol.js';
import { MSG_TYPES, parseOdometryMsg, parseStringMsg, stringMsg } from '../../rosbridge/ros-messages.js';
import type { WallClock } from './wall-clock.js';

/** Clock probes to each device, from the start of the simulator to its end: ten exchanges a second. */
const SYNC_PERIOD_MS = 100;
/** A probe not answered within this is forgotten (its answer would say nothing about the clock now). */
const SYNC_EXPIRY_NS = 2_000_000_000n;

/**
 * The simulator's side of its physical cars (external role: body): their pose reports, the
 * clock-sync exchange with each device, where each car is at a step, and the gates.
 */
export class BodyLink {
  private readonly reports = new Map<string, BodyReports>();
  private readonly probes = new Map<string, Map<number, bigint>>();
  private nextSeq = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    scenario: ResolvedScenario,
    private readonly bridge: BridgeServer,
    private readonly clock: WallClock,
    /** Told when a car becomes ready (first pose and first clock answer), so the status can say so. */
    private readonly onReady: (car: string) => void,
  ) {
    for (const v of scenario.vehicles) {
      if (v.external?.role === 'body' && v.external.body) this.reports.set(v.name, new BodyReports(v.name, v.external.body));
    }
  }

  get cars(): ReadonlySet<string> {
    return new Set(this.reports.keys());
  }

  wire(): void {
    if (!this.reports.size) return;
    for (const car of this.reports.keys()) {
      this.probes.set(car, new Map());
      this.bridge.advertise(TOPICS.bodySync(car), MSG_TYPES.string);
      this.bridge.subscribe(TOPICS.bodyOdom(car), MSG_TYPES.odometry, (msg) => this.onPose(car, msg));
      this.bridge.subscribe(TOPICS.bodySyncReply(car), MSG_TYPES.string, (msg) => this.onSyncReply(car, parseStringMsg(msg)));
    }
    this.timer = setInterval(() => this.probe(), SYNC_PERIOD_MS);
  }

  /** Has reported a pose and answered a clock probe: it can be mirrored from the start. */
  isReady(car: string): boolean {
    const r = this.reports.get(car);
    return !r || (r.newest !== undefined && r.clock.current !== undefined);
  }

  start(t0Ns: bigint): void {
    for (const r of this.reports.values()) r.start(t0Ns);
  }

  /** Puts each physical car where its newest report says it is at `atNs` (moved on at its speed, bounded). */
  place(world: World, atNs: bigint): void {
    for (const car of world.cars) {
      const newest = car.mirrored ? this.reports.get(car.spec.name)?.newest : undefined;
      if (!newest) continue;
      world.mirror(car, poseAt(newest, atNs));
      // Nothing commands it: its command columns repeat what it reported.
      car.command = { speed: newest.v, steer: newest.steer };
    }
  }

  /** Why the run fails at `nowNs`: a car that has not reported for longer than its maxReportGap. */
  stallReason(nowNs: bigint, tS: number): string | undefined {
    for (const [car, r] of this.reports) {
      const silent = Number(r.silentFor(nowNs)) / 1e9;
      if (silent > r.gates.maxReportGap)
        return `${car}'s device stopped reporting its pose: none for ${Math.round(silent * 1000)} ms at t=${tS.toFixed(2)} s (external.maxReportGap ${r.gates.maxReportGap * 1000} ms)`;
    }
    return undefined;
  }

  /** A time the device stamped on its own clock, on the simulator's (for the V2V it reports). */
  toSimulatorNs(car: string, deviceNs: bigint): bigint {
    const offset = this.reports.get(car)?.clock.current?.offsetNs;
    return offset === undefined ? deviceNs : deviceNs - BigInt(Math.round(offset));
  }

  figures(endNs: bigint): Record<string, BodyFigures> {
    return Object.fromEntries([...this.reports].map(([car, r]) => [car, r.figures(endNs)]));
  }

  invalidReasons(figures: Record<string, BodyFigures>): string[] {
    return Object.entries(figures).flatMap(([car, f]) => bodyInvalidReasons(car, f));
  }

  close(): void {
    clearInterval(this.timer);
  }

  private probe(): void {
    const now = this.clock.nowNs();
    for (const [car, pending] of this.probes) {
      for (const [seq, t1] of pending) if (now - t1 > SYNC_EXPIRY_NS) pending.delete(seq);
      const seq = this.nextSeq++;
      const t1 = this.clock.nowNs();
      pending.set(seq, t1);
      const probe: BodySyncProbe = { seq, t1_ns: t1.toString() };
      this.bridge.publish(TOPICS.bodySync(car), stringMsg(JSON.stringify(probe)));
    }
  }

  private onSyncReply(car: string, data: string): void {
    const t4 = this.clock.nowNs();
    const reply = parseJsonData(bodySyncReplySchema, data, TOPICS.bodySyncReply(car));
    const pending = this.probes.get(car)!;
    // Only our own t1 counts: a reply to a probe never sent, or sent long ago, measures nothing.
    const t1 = pending.get(reply.seq);
    if (t1 === undefined || t1.toString() !== reply.t1_ns)
      throw new ProtocolError(`no probe ${reply.seq} with t1_ns ${reply.t1_ns} is waiting for an answer`);
    pending.delete(reply.seq);
    const wasReady = this.isReady(car);
    this.reports.get(car)!.sync({ t1, t2: BigInt(reply.t2_ns), t3: BigInt(reply.t3_ns), t4 });
    if (!wasReady && this.isReady(car)) this.onReady(car);
  }

  private onPose(car: string, msg: Parameters<typeof parseOdometryMsg>[0]): void {
    const receivedNs = this.clock.nowNs();
    const { stampNs, x, y, yaw, v, steer, yawRate } = parseOdometryMsg(msg);
    const wasReady = this.isReady(car);
    this.reports.get(car)!.report({ x, y, yaw, v, steer, yawRate }, stampNs, receivedNs);
    if (!wasReady && this.isReady(car)) this.onReady(car);
  }
}
