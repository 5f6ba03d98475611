import type { LaserScan } from '../../../../core/control/vehicle-context.js';
import type { ResolvedScenario, ResolvedVehicle } from '../../../../scenario/resolved.js';
import { stepSchedule } from '../../../../world/step-schedule.js';
import { BridgeClient } from '../../../rosbridge/bridge-client.js';
import { LaserScanEncoder } from '../../../rosbridge/laser-scan-msg.js';
import { encodePublishFrame } from '../../../rosbridge/protocol.js';
import { odometryJson, stringMsg } from '../../../rosbridge/ros-messages.js';
import { TOPICS } from '../../../rosbridge/topic-names.js';
import type { V2VEndpoint } from '../../v2v/transport.js';
import { decodeDatagram, encodeDatagram } from '../../v2v/wire.js';
import { coastingOdometry } from './rehearsal-odometry.js';
import { ScratchBridge, type ScratchPeer } from './scratch-bridge.js';

export interface RehearsalLimits {
  ticks: number;
  budgetMs: number;
  /** How long a tick waits for the car's drive command before the next goes out [ms]; default 50. */
  answerWaitMs?: number;
}

/** What the rehearsal ticks: a scratch copy of the car's session (vehicle-session.ts) on the scratch bridge at `simUrl`. */
export interface RehearsedSession {
  readonly finished: Promise<unknown>;
  finish(exitCode: 0 | 1, reason: string): void;
}

/** The V2V a rehearsed session sends through: encoded and decoded, never sent. */
export type ScratchV2V = Pick<V2VEndpoint, 'sendStamped' | 'close'>;

/** Opens a scratch session of the car (the vehicle process passes one that makes its own `VehicleSession`). */
export type OpenRehearsedSession = (client: BridgeClient, v2v: ScratchV2V, simUrl: string) => RehearsedSession;

const DEFAULT_LIMITS: RehearsalLimits = { ticks: 600, budgetMs: 1_000 };
/** How long a step waits for the car's drive command: an idle car's apps drive only now and then. */
const ANSWER_WAIT_MS = { driving: 50, idle: 2 };
/** Past its budget, a rehearsal that has not wound down is abandoned. */
const WIND_DOWN_MS = 2_000;

/**
 * Runs a scratch copy of the car's session (its apps, its rosbridge client, the WebSocket client
 * and Node's TCP socket) against a scratch bridge on loopback in this process, one physics step at
 * a time: odometry of every car it observes (and a scan when due) and its own, then its drive
 * command back. Every car coasts straight from its start pose; a lidar sees a straight corridor.
 * With 32 cars on 2 cores, a first second of run spent compiling that path made every command
 * late; here each car does it before it reports ready. V2V sends are encoded and decoded, not sent.
 * Resolves with the control ticks rehearsed, and how many of them the car answered with a drive command.
 */
export async function rehearseControlLink(
  scenario: ResolvedScenario,
  spec: ResolvedVehicle,
  openSession: OpenRehearsedSession,
  limits: RehearsalLimits = DEFAULT_LIMITS,
): Promise<{ ticks: number; answered: number }> {
  // Two sessions one after the other, each with half the ticks and the time: code optimized on
  // one session's own closures (its handlers, its apps' callbacks) would be thrown away when the
  // run's session calls its own; after two, V8 optimizes for any session's.
  const half = { ...limits, ticks: Math.ceil(limits.ticks / 2), budgetMs: limits.budgetMs / 2 };
  const first = await rehearseOnce(scenario, spec, openSession, half);
  const second = await rehearseOnce(scenario, spec, openSession, { ...half, ticks: limits.ticks - first.ticks });
  return { ticks: first.ticks + second.ticks, answered: first.answered + second.answered };
}

async function rehearseOnce(
  scenario: ResolvedScenario,
  spec: ResolvedVehicle,
  openSession: OpenRehearsedSession,
  limits: RehearsalLimits,
): Promise<{ ticks: number; answered: number }> {
  const script = new RehearsalScript(scenario, spec, limits);
  const bridge = await ScratchBridge.listen((text, peer) => script.onText(text, peer));
  try {
    const client = await BridgeClient.connect(bridge.url);
    const session = openSession(client, scratchV2V(spec.name), bridge.url);
    const abandoned = new Promise<void>((resolve) => setTimeout(resolve, limits.budgetMs + WIND_DOWN_MS).unref());
    await Promise.race([session.finished, abandoned]);
    session.finish(0, 'rehearsal over');
    return { ticks: script.ticks, answered: script.answered };
  } finally {
    script.end();
    await bridge.close();
  }
}

class RehearsalScript {
  ticks = 0;
  answered = 0;
  private step = 0;
  private peer?: ScratchPeer;
  private wait?: NodeJS.Timeout;
  private readonly deadline: number;
  private readonly stepNs: bigint;
  private readonly period: number;
  private readonly scanPeriod?: number;
  private readonly observed: ResolvedVehicle[];
  private readonly scanEncoder?: LaserScanEncoder;
  private readonly corridor?: LaserScan;

  constructor(
    private readonly scenario: ResolvedScenario,
    private readonly spec: ResolvedVehicle,
    private readonly limits: RehearsalLimits,
  ) {
    const schedule = stepSchedule(scenario);
    this.deadline = performance.now() + limits.budgetMs;
    this.stepNs = BigInt(Math.round(scenario.physics.timestep * 1e9));
    this.period = schedule.controlPeriod(spec);
    this.scanPeriod = schedule.scanPeriod(spec);
    this.observed = scenario.vehicles.filter((v) => spec.observes.includes(v.name));
    if (spec.lidar) {
      this.scanEncoder = new LaserScanEncoder({ frameId: `${spec.name}/base_link`, scanTime: 1 / spec.lidar.rate });
      this.corridor = corridorScan(spec.lidar);
    }
  }

  onText(text: string, peer: ScratchPeer): void {
    const op = JSON.parse(text) as { op?: string; topic?: string; msg?: { header?: { stamp?: { sec: number; nanosec: number } } } };
    if (op.op !== 'publish') return;
    if (op.topic === TOPICS.ready && !this.peer) {
      this.peer = peer;
      peer.send(encodePublishFrame(TOPICS.simControl, JSON.stringify(stringMsg(JSON.stringify({ cmd: 'start', t0_epoch_ns: '0' })))));
      this.sendStep();
    } else if (op.topic === TOPICS.drive(this.spec.name) && this.answers(op.msg?.header?.stamp)) {
      this.answered++;
      this.sendStep();
    }
  }

  end(): void {
    clearTimeout(this.wait);
  }

  /** Whether a drive command is stamped with the step sent last (a late answer to an earlier one is not). */
  private answers(stamp: { sec: number; nanosec: number } | undefined): boolean {
    return stamp !== undefined && BigInt(stamp.sec) * 1_000_000_000n + BigInt(stamp.nanosec) === BigInt(this.step - 1) * this.stepNs;
  }

  private sendStep(): void {
    clearTimeout(this.wait);
    const peer = this.peer!;
    if (this.ticks >= this.limits.ticks || performance.now() > this.deadline) {
      peer.send(
        encodePublishFrame(TOPICS.simControl, JSON.stringify(stringMsg(JSON.stringify({ cmd: 'stop', reason: 'rehearsal over' })))),
      );
      return;
    }
    const step = this.step++;
    const t = step * this.scenario.physics.timestep;
    const stampNs = BigInt(step) * this.stepNs;
    for (const o of this.observed)
      peer.send(encodePublishFrame(TOPICS.odom(o.name), odometryJson(o.name, coastingOdometry(o, t, step), stampNs)));
    if (this.scanEncoder && step % this.scanPeriod! === 0)
      peer.send(encodePublishFrame(TOPICS.scan(this.spec.name), this.scanEncoder.encode({ ...this.corridor!, t }, stampNs)));
    peer.send(encodePublishFrame(TOPICS.odom(this.spec.name), odometryJson(this.spec.name, coastingOdometry(this.spec, t, step), stampNs)));
    const ticking = step % this.period === 0;
    if (ticking) this.ticks++;
    const answer = ticking && this.spec.controller.type !== 'idle';
    this.wait = setTimeout(() => this.sendStep(), answer ? (this.limits.answerWaitMs ?? ANSWER_WAIT_MS.driving) : ANSWER_WAIT_MS.idle);
  }
}

/** Sends nothing: a datagram is encoded and decoded, as the real send and a peer's receipt would. */
function scratchV2V(name: string): ScratchV2V {
  return {
    async sendStamped(p) {
      const datagram = {
        id: p.id,
        from: name,
        to: p.to,
        type: p.type,
        sentAtNs: '0',
        body: p.body,
        ...(p.packet ? { packet: p.packet } : {}),
      };
      const payload = encodeDatagram(datagram);
      decodeDatagram(payload);
      return { size: payload.length, sentAtNs: 0n };
    },
    async close() {},
  };
}

/** What a lidar at the middle of a straight 2 m wide corridor, facing along it, would see. */
function corridorScan(lidar: NonNullable<ResolvedVehicle['lidar']>): LaserScan {
  const angleMin = -lidar.fov / 2;
  const angleIncrement = lidar.fov / (lidar.beams - 1);
  const ranges = Float32Array.from({ length: lidar.beams }, (_, i) =>
    Math.min(lidar.rangeMax, 1 / Math.abs(Math.sin(angleMin + i * angleIncrement))),
  );
  return { t: 0, angleMin, angleIncrement, rangeMax: lidar.rangeMax, ranges };
}
