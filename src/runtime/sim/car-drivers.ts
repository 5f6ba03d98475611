import { performance } from 'node:perf_hooks';
import type { LaserScan, Odometry, V2VMessage } from '../../core/control/vehicle-context.js';
import { withinDriveLimits } from '../../core/physics/drive-limits.js';
import type { DriveCommand } from '../../core/physics/types.js';
import { standardMessageProblem } from '../../core/v2x/facilities/message-gate.js';
import { DEFAULT_GEO_REFERENCE } from '../../core/v2x/networking/geo-reference.js';
import type { Recorder } from '../../measurement/recorder.js';
import type { RefusalLog } from '../../measurement/refusal-log.js';
import { computeDelay, type TickCost } from '../../world/compute-time.js';
import { type BodySizes, bodySizes, createVehicleApps } from '../../world/create-apps.js';
import { VehicleAgent } from '../../world/vehicle-agent.js';
import type { World, WorldCar } from '../../world/world.js';
import { believedEventTime } from '../rosbridge/control-topics.js';
import { ownPacket, packetText } from '../rosbridge/own-packet.js';
import { destinationProblem } from '../rosbridge/v2v-destination.js';
import type { CarCongestionControl } from './car-congestion-control.js';
import type { TickAnswer, TickInput } from './own-code/own-code-link.js';
import type { VehicleCode } from './own-code/vehicle-code.js';

/** A V2V message that reached a car, with its virtual receive time [s]. */
export interface Arrival {
  msg: V2VMessage;
  at: number;
}

/** What a car's computer produced in one control tick, and when it was ready. */
export interface TickOutput {
  /** The drive command, when the tick gave one. */
  command?: DriveCommand;
  /** V2V messages to send, stamped with the time they leave (the tick's time plus `delay`). */
  sends: V2VMessage[];
  /** Compute time applied in virtual time [s]. */
  delay: number;
  /** What the tick cost, for compute.csv (none when nothing answered it). */
  cost?: TickCost;
  /** compute.csv rows instead of this tick's own (answers to earlier ticks, without the barrier). */
  logged?: ComputeRow[];
}

/** One row of compute.csv: the tick answered, what the answer cost, the compute time applied [s]. */
export interface ComputeRow {
  step: number;
  t: number;
  cost: TickCost;
  appliedS: number;
}

/** Who drives a car in the simulated runtime: cavsim's own controller and apps, or the vehicle's own code. */
export interface CarDriver {
  readonly name: string;
  readonly car: WorldCar;
  readonly ownCode: boolean;
  /** Arrivals not yet handed over; they are at the car's next tick. */
  readonly inbox: Arrival[];
  braking(): boolean;
  /** The output is read before the car ticks again (a builtin driver writes the same object each tick). */
  tick(step: number): TickOutput | Promise<TickOutput>;
  /**
   * Code that runs without the barrier: what it answered by the time the next physics step is due
   * (called every step, after the wall clock reached it, before the step's commands apply).
   */
  collect?(step: number): TickOutput;
  collided?(report: { step: number; t: number; with: string[]; speed: number }): void;
  close?(reason: string): Promise<void>;
}

/** What a tick that sent nothing returns: shared, never written to. */
const NO_SENDS: V2VMessage[] = [];

/** Every car's footprint by name, made once per scenario: each car's apps take the same map. */
const sizesOf = new WeakMap<World['scenario'], BodySizes>();
const bodySizesOnce = (scenario: World['scenario']) => {
  let sizes = sizesOf.get(scenario);
  if (!sizes) sizesOf.set(scenario, (sizes = bodySizes(scenario)));
  return sizes;
};

const restamp = (msgs: V2VMessage[], delay: number) => (delay ? msgs.map((m) => ({ ...m, sentAt: m.sentAt + delay })) : msgs);

/** cavsim's controller and V2V apps, run in-process; a tick's cost is its wall-clock time here. */
export function builtinDriver(
  world: World,
  car: WorldCar,
  observed: readonly WorldCar[],
  recorder: Recorder,
  latestScan: ReadonlyMap<string, LaserScan>,
  /** The cars' congestion control, when any car's apps ask for it. */
  dcc?: Pick<CarCongestionControl, 'interval'>,
): CarDriver {
  let command: DriveCommand | undefined;
  let sends: V2VMessage[] = [];
  const geoReference = world.scenario.geoReference ?? DEFAULT_GEO_REFERENCE;
  // The car's odometry, made once per step for all its apps (a new object each step: an app may keep it).
  let own: Odometry | undefined;
  let ownState: WorldCar['state'] | undefined;
  let ownStep = -1;
  const odometry = () => {
    if (ownStep !== world.steps || ownState !== car.state) {
      own = world.odometry(car);
      ownState = car.state;
      ownStep = world.steps;
    }
    return own;
  };
  const agent = new VehicleAgent(
    car.spec.name,
    createVehicleApps(car.spec, bodySizesOnce(world.scenario), geoReference, world.grid),
    {
      now: () => world.time,
      own: odometry,
      others: () => new Map<string, Odometry>(observed.map((o) => [o.spec.name, world.odometry(o)])),
      scan: () => latestScan.get(car.spec.name),
      publishDrive: (cmd) => (command = cmd),
      transmit: (msg) => sends.push(msg),
      log: (event, detail) => recorder.recordEvent(world.time, car.spec.name, event, detail),
      ...(dcc ? { dccInterval: () => dcc.interval(car.spec.name) } : {}),
    },
    geoReference,
  );
  const inbox: Arrival[] = [];
  const timed = car.spec.compute.model !== 'none';
  const out: TickOutput = { sends: NO_SENDS, delay: 0, cost: undefined, command: undefined };
  return {
    name: car.spec.name,
    car,
    ownCode: false,
    inbox,
    braking: () => agent.isBraking(),
    tick() {
      // a car without a compute model has no use for what its tick cost (compute.csv lists only cars with one)
      const started = timed ? performance.now() : 0;
      if (inbox.length) for (const a of inbox.splice(0)) agent.receive(a.msg);
      agent.tick();
      const cost = timed ? { wallS: (performance.now() - started) / 1000 } : undefined;
      const delay = cost ? computeDelay(car.spec.compute, cost) : 0;
      // one output object per car, written anew each tick: the loop takes what it says before the next tick
      out.sends = sends.length ? restamp(sends, delay) : NO_SENDS;
      out.delay = delay;
      out.cost = cost;
      out.command = command;
      command = undefined;
      if (sends.length) sends = [];
      return out;
    },
  };
}

/**
 * A vehicle's own code (or external device) behind its control link. With the barrier each tick
 * waits until the code answers; without it (`code.freeRunning`) the tick is only published, and
 * whatever the code answered by the time the next step is due is collected then: the newest
 * command acts at the next step, its sends leave at this step's time.
 */
export function ownCodeDriver(
  world: World,
  car: WorldCar,
  observed: readonly WorldCar[],
  code: VehicleCode,
  recorder: Recorder,
  latestScan: ReadonlyMap<string, LaserScan>,
  scanSteps: (step: number) => boolean,
  refusals: RefusalLog,
): CarDriver {
  const inbox: Arrival[] = [];
  const name = car.spec.name;
  const others = new Set(world.cars.map((c) => c.spec.name).filter((n) => n !== name));
  const limits = car.spec.params;
  const dt = world.timestep;
  const stepNs = BigInt(Math.round(dt * 1e9));
  let seq = 0;
  let braking = false;
  const inputOf = (step: number): TickInput => {
    const received = inbox.splice(0).map(({ msg, at }) => ({
      id: msg.id,
      from: msg.from,
      to: name,
      type: msg.type,
      body: msg.body,
      ...(msg.packet ? { packet: packetText(msg.packet) } : {}),
      sent_s: msg.sentAt,
      received_s: at,
    }));
    const scan = scanSteps(step) ? latestScan.get(name) : undefined;
    return {
      step,
      stampNs: BigInt(step) * stepNs,
      own: world.odometry(car),
      observed: new Map(observed.map((o) => [o.spec.name, world.odometry(o)])),
      received,
      ...(scan ? { scan } : {}),
    };
  };
  /** Records the code's events and turns its send requests into messages leaving at `sentAt`. */
  const reportsOf = (answer: Pick<TickAnswer, 'sends' | 'events'>, t: number, sentAt: number): V2VMessage[] => {
    for (const e of answer.events) {
      if (e.vehicle !== name) continue;
      if (e.event === 'emergency-brake') braking = true;
      recorder.recordEvent(believedEventTime(e.t_s, t, dt), name, e.event, e.detail);
    }
    for (const r of code.takeRefusals?.() ?? []) refusals.refuse(t, name, r.reason, r.detail, r.count);
    return answer.sends.flatMap((s) => {
      const refused = (reason: 'v2v-destination' | 'v2v-source', why: string) => {
        refusals.refuse(t, name, reason, { type: s.type, to: s.to, reason: why });
        return [];
      };
      const where = destinationProblem(s, name, others);
      if (where) return refused('v2v-destination', where);
      const own = s.packet === undefined ? undefined : ownPacket(name, s.packet);
      if (own && 'problem' in own) return refused('v2v-source', own.problem);
      const wire = own ? { packet: own.packet } : s.size_bytes !== undefined ? { sizeBytes: s.size_bytes } : {};
      const msg: V2VMessage = { id: `${name}-${++seq}`, from: name, to: s.to, sentAt, type: s.type, body: s.body, ...wire };
      // on the air as sent; every receiver drops it (v2v.csv `malformed`), and it is counted once here
      const malformed = standardMessageProblem(s.type, own?.packet);
      if (malformed) {
        msg.malformed = malformed;
        refusals.refuse(t, name, 'malformed', { type: s.type, to: s.to, id: msg.id, reason: malformed });
      }
      return [msg];
    });
  };
  /** A command outside the car's limits acts clamped to them, and is counted (never written as 1e308). */
  const withinLimits = (command: DriveCommand, t: number): DriveCommand => {
    const applied = withinDriveLimits(command, limits);
    if (applied !== command)
      refusals.refuse(t, name, 'drive-clamped', {
        speed: command.speed,
        steer: command.steer,
        applied: { speed: applied.speed, steer: applied.steer },
      });
    return applied;
  };
  const free = code.freeRunning;
  return {
    name,
    car,
    ownCode: true,
    inbox,
    braking: () => braking,
    async tick(step) {
      if (free) {
        free.publish(inputOf(step));
        return { sends: NO_SENDS, delay: 0 };
      }
      const t = world.time;
      const answer = await code.tick(inputOf(step));
      const cost = { wallS: answer.wallS, ...(answer.cpuS !== undefined ? { cpuS: answer.cpuS } : {}) };
      const delay = computeDelay(car.spec.compute, cost);
      return { command: withinLimits(answer.command, t), sends: reportsOf(answer, t, t + delay), delay, cost };
    },
    ...(free
      ? {
          collect(step: number): TickOutput {
            const t = world.time;
            const got = free.collect();
            const logged = got.answers.map(({ stampNs, wallS }) => {
              const answered = Number(stampNs / stepNs);
              return { step: answered, t: answered * dt, cost: { wallS }, appliedS: Math.max(0, step - answered) * dt };
            });
            const sends = reportsOf(got, t, t);
            return { ...(got.command ? { command: withinLimits(got.command, t) } : {}), sends, delay: 0, logged };
          },
        }
      : {}),
    collided: (c) => code.collided({ vehicle: name, step: c.step, t_s: c.t, with: c.with, speed_mps: c.speed }),
    // what the link refused after the last tick (while the run ends, or as the code is told to stop) is recorded too
    close: async (reason) => {
      const late = () => {
        for (const r of code.takeRefusals?.() ?? []) refusals.refuse(world.time, name, r.reason, r.detail, r.count);
      };
      late();
      try {
        await code.close(reason);
      } finally {
        late();
      }
    },
  };
}
