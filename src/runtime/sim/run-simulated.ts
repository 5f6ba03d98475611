import type { Delivery, V2VChannel } from '../../channel/frames.js';
import type { NodeMotion } from '../../channel/ns3/lockstep/lockstep-channel.js';
import type { LockstepProcessPool } from '../../channel/ns3/lockstep/process-pool.js';
import type { LaserScan, V2VMessage } from '../../core/control/vehicle-context.js';
import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import type { ComputeLog } from '../../measurement/compute-log.js';
import type { CarSample, Recorder } from '../../measurement/recorder.js';
import { RefusalLog } from '../../measurement/refusal-log.js';
import type { ScanLog } from '../../measurement/scan-log.js';
import type { V2VCapture } from '../../measurement/v2v-capture.js';
import type { RunEvents } from '../../run/events.js';
import type { FleetV2v } from '../../run/fleet-v2v.js';
import type { ResolvedScenario, ResolvedVehicle } from '../../scenario/resolved.js';
import { firstStepActing } from '../../world/compute-time.js';
import { actsOnReceivedMessages } from '../../world/create-apps.js';
import { createScanners } from '../../world/scanners.js';
import { stepSchedule } from '../../world/step-schedule.js';
import type { CollisionEvent } from '../../world/world.js';
import { World } from '../../world/world.js';
import { CarCongestionControl } from './car-congestion-control.js';
import { builtinDriver, type CarDriver, ownCodeDriver, type TickOutput } from './car-drivers.js';
import { channelTallies, openChannel } from './open-channel.js';
import type { VehicleCode } from './own-code/vehicle-code.js';
import { PendingCommands, PendingSends } from './pending-outputs.js';
import { fleetSink, payloadBytes, rowsSink } from './v2v-sink.js';

export interface SimulatedRunResult {
  simTime: number;
  steps: number;
  interrupted: boolean;
  /** Why the run ended early, when something failed: the figures above are as far as it got. */
  failure?: unknown;
}

/**
 * How often a run hands the event loop a turn [ms]: Ctrl-C (and anything else queued) is seen, and
 * an ns-3 process's outcomes are read while it runs ahead (its pipe full, it would wait).
 */
const YIELD_EVERY_MS = 20;
/** Steps between looks at the clock (a power of two, tested as a mask). */
const YIELD_CHECK_STEPS = 8;

/**
 * Runs a whole scenario in one process in virtual time. Each step: log the V2V frames that have
 * arrived (at their exact receive times), run due controllers and apps (each car's apps first get
 * the messages that arrived since its last tick, as in emulation), advance the physics, record.
 * Deterministic for a seed.
 */
export async function runSimulated(
  scenario: ResolvedScenario,
  grid: OccupancyGrid,
  recorder: Recorder,
  opts: {
    events?: RunEvents;
    shouldStop?: () => boolean;
    progressEverySteps?: number;
    ownCode?: OwnCodeStarter;
    computeLog?: ComputeLog;
    scanLog?: ScanLog;
    /** Keep virtual time no faster than the wall clock (someone is watching live). */
    realTime?: boolean;
    /** Serving ns-3 processes for a lock-step channel (default: the run starts its own). */
    lockstepPool?: LockstepProcessPool;
    /** v2v.pcap: every frame sent, as it went onto the channel. */
    capture?: V2VCapture;
    /** Fleets (run/fleet-mode.ts): V2V outcomes counted here, not recorded per frame and receiver. */
    fleet?: FleetV2v;
    /** What the run refuses from own code and devices (default: recorded as events only). */
    refusals?: RefusalLog;
  } = {},
): Promise<SimulatedRunResult> {
  const world = new World(scenario, grid);
  const schedule = stepSchedule(scenario);
  const names = scenario.vehicles.map((v) => v.name);
  const cars = new Map(world.cars.map((c) => [c.spec.name, c]));
  const scanners = createScanners(world, grid);
  const latestScan = new Map<string, LaserScan>();
  const engine = scenario.network.engine ?? 'builtin';
  const refusals = opts.refusals ?? new RefusalLog((t, car, event, detail) => recorder.recordEvent(t, car, event, detail));
  const sink = opts.fleet ? fleetSink(opts.fleet, world, channelTallies(scenario, engine)) : rowsSink(recorder, world, opts.capture);
  /** Every car but one, once per sender: a broadcast's receivers (nothing keeps or changes them). */
  const othersOf = new Map(names.map((n, i) => [n, names.slice(0, i).concat(names.slice(i + 1))]));
  const transmit = (msg: V2VMessage) => {
    const size = payloadBytes(msg);
    // the sender's driver lets through only `*` and other cars of the run (destinationProblem)
    const to =
      msg.to === '*'
        ? (othersOf.get(msg.from) ?? names.filter((n) => n !== msg.from))
        : msg.to !== msg.from && names.includes(msg.to)
          ? [msg.to]
          : [];
    sink.sent(msg, size, to);
    if (to.length) channel?.send({ payload: msg, from: msg.from, to, broadcast: msg.to === '*', sizeBytes: size }, msg.sentAt);
  };
  const logOutcomes = (outcomes: readonly Delivery<V2VMessage>[]) => sink.outcomes(outcomes);
  const dcc = new CarCongestionControl(scenario, (car, state, cbr) =>
    recorder.recordEvent(world.time, car, 'dcc-state', { state, cbr: Math.round(cbr * 1000) / 1000 }),
  );
  /** A radio's CBR windows that have ended by `now` go to cbr.csv (and to the cars' DCC); other channels have no medium state to report. */
  const recordChannelBusy = (now: number) => {
    if (!channel?.takeChannelBusy) return;
    const samples = channel.takeChannelBusy(now);
    dcc.observe(samples);
    recorder.recordChannelBusy(samples);
  };
  const { totalSteps } = schedule;
  const progressEvery = opts.progressEverySteps ?? schedule.progressEvery;

  let channel: V2VChannel<V2VMessage> | undefined;
  const drivers: CarDriver[] = [];
  let interrupted = false;
  let endReason = 'end of run';
  // A failure (diverged physics, a controller's bug, own code that died) ends the run where it is: what was measured stays.
  let failure: unknown;
  try {
    channel = await openChannel<V2VMessage>(scenario, engine, grid, motionOf(world), opts.lockstepPool, opts.fleet?.tally);
    const codes: VehicleCode[] = [];
    for (const car of world.cars) {
      const observed = car.spec.observes.map((n) => cars.get(n)!);
      if (!car.spec.command && !car.spec.external) {
        drivers.push(builtinDriver(world, car, observed, recorder, latestScan, dcc.active ? dcc : undefined));
        continue;
      }
      if (!opts.ownCode) throw new Error(`${car.spec.name} runs its own code, and this run was given no way to start it`);
      const scanPeriod = schedule.scanPeriod(car.spec);
      const code = await opts.ownCode(car.spec, () => world.time);
      codes.push(code);
      drivers.push(
        ownCodeDriver(
          world,
          car,
          observed,
          code,
          recorder,
          latestScan,
          (step) => scanPeriod !== undefined && step % scanPeriod === 0,
          refusals,
        ),
      );
    }
    await Promise.all(codes.map((c) => c.whenReady()));
    for (const c of codes) c.start();
    await loop();
    // Frames that arrived during the last step are logged though no tick is left to hand them over.
    if (channel.settle) await channel.settle(world.time);
    else if (channel.advanceTo) await channel.advanceTo(world.time);
    logOutcomes(channel.deliverDue(world.time));
    recordChannelBusy(world.time);
    recorder.closeTransmissions('run-ended');
  } catch (err) {
    failure = err;
    endReason = err instanceof Error ? err.message : String(err);
  } finally {
    await Promise.all(drivers.map((d) => d.close?.(interrupted ? 'interrupted' : endReason)));
    await channel?.close?.();
  }
  return { simTime: world.time, steps: world.steps, interrupted, ...(failure !== undefined ? { failure } : {}) };

  async function loop(): Promise<void> {
    const periods = new Map(drivers.map((d) => [d, schedule.controlPeriod(d.car.spec)]));
    const byName = new Map(drivers.map((d) => [d.name, d]));
    // What reaches a car whose apps never act on it (a beacon's, a CAM sender's) would only fill its unread neighbour table.
    const listening = new Map(drivers.filter((d) => actsOnReceivedMessages(d.car.spec)).map((d) => [d.name, d]));
    const commands = new PendingCommands();
    const sends = new PendingSends();
    const ownCode = drivers.filter((d) => d.ownCode);
    // Code without the barrier answers in real time: virtual time then keeps to the wall clock.
    const freeRunning = drivers.filter((d) => d.collect);
    const reported = new Set<string>();
    let samples: readonly CarSample[] = [];
    const record = () => {
      samples = recorder.recordWorld(world, (name) => byName.get(name)!.braking());
    };
    record();
    let yieldAt = performance.now() + YIELD_EVERY_MS;
    const wallAtZero = performance.now();
    while (world.steps < totalSteps) {
      if (opts.realTime) await waitUntil(wallAtZero + world.time * 1000);
      // Own code answers through the event loop anyway; in-process runs hand it a turn now and then.
      if (!ownCode.length && (world.steps & (YIELD_CHECK_STEPS - 1)) === 0 && performance.now() >= yieldAt) {
        await new Promise((r) => setImmediate(r));
        yieldAt = performance.now() + YIELD_EVERY_MS;
      }
      if (opts.shouldStop?.()) {
        interrupted = true;
        return;
      }
      const step = world.steps;
      const t = world.time;
      if (channel!.advanceTo) await channel!.advanceTo(t);
      const delivered = logOutcomes(channel!.deliverDue(t));
      if (listening.size) for (const d of delivered) listening.get(d.to)?.inbox.push({ msg: d.payload, at: d.at });
      recordChannelBusy(t);
      for (const sc of scanners) {
        if (step % sc.period !== 0) continue;
        const scan = sc.scan();
        latestScan.set(sc.name, scan);
        opts.scanLog?.add(sc.name, scan);
      }
      const due = drivers.filter((d) => step % periods.get(d)! === 0 && !d.car.collided);
      // Every car computes at once, as real cars would: own code answers in parallel.
      // (cavsim's own controllers answer at once: no promise per car and step)
      const take = (d: CarDriver, out: TickOutput) => {
        if (out.command) commands.add(d.car, firstStepActing(step, out.delay, world.timestep), out.command);
        sends.add(out.sends);
        if (opts.computeLog)
          for (const row of out.logged ?? (out.cost ? [{ step, t, cost: out.cost, appliedS: out.delay }] : []))
            opts.computeLog.add(row.step, row.t, d.name, row.cost, row.appliedS);
      };
      if (ownCode.length) {
        const outputs = await Promise.all(due.map((d) => d.tick(step)));
        for (let i = 0; i < due.length; i++) take(due[i], outputs[i]);
      } else {
        // each output taken as it comes: what take() changes acts only after every tick of the step
        for (const d of due) take(d, d.tick(step) as TickOutput);
      }
      if (freeRunning.length) {
        // The next step is computed when the wall clock reaches it, with the newest command by then.
        await waitUntil(wallAtZero + (step + 1) * world.timestep * 1000);
        await new Promise((r) => setImmediate(r));
        for (const d of freeRunning) if (!d.car.collided) take(d, d.collect!(step));
      }
      for (const msg of sends.dueBefore(t + world.timestep)) transmit(msg);
      // ns-3 runs the frames just sent while the physics steps (lock-step, two processes)
      channel!.prefetch?.((step + 1) * world.timestep);
      commands.applyFor(step + 1);
      const collisions = world.step();
      recorder.recordCollisions(collisions);
      reportCollisions(collisions, byName, reported, step + 1, world.time);
      record();
      if (step % 10 === 9) {
        opts.capture?.flush();
        opts.computeLog?.flush();
        opts.scanLog?.flush();
      }
      if (opts.events && world.steps % progressEvery === 0) {
        opts.events.emit({
          type: 'progress',
          t: world.time,
          duration: scenario.duration,
          cars: samples.map((s) => ({ name: s.name, v: s.v, braking: s.braking, collided: s.collided })),
          minTtc: recorder.minTtc(),
        });
      }
    }
  }
}

/** Starts a vehicle's own code for the run; the simulated runtime's caller decides how (a host process). */
export type OwnCodeStarter = (spec: ResolvedVehicle, now: () => number) => Promise<VehicleCode>;

/** Every car's position and velocity now, in objects kept from call to call: the channel reads them at once, a few times a step. */
function motionOf(world: World): () => readonly NodeMotion[] {
  const motion = world.cars.map(() => ({ x: 0, y: 0, vx: 0, vy: 0 }));
  return () => {
    world.cars.forEach((c, i) => {
      const m = motion[i];
      const s = c.state;
      m.x = s.x;
      m.y = s.y;
      m.vx = s.v * Math.cos(s.yaw);
      m.vy = s.v * Math.sin(s.yaw);
    });
    return motion;
  };
}

/** Tells a car's own code it collided, in the step it happened (the car then stops ticking). */
function reportCollisions(
  collisions: readonly CollisionEvent[],
  byName: ReadonlyMap<string, CarDriver>,
  reported: Set<string>,
  step: number,
  t: number,
): void {
  if (!collisions.length) return;
  const hits = new Map<string, string[]>();
  const hit = (car: string, what: string) => {
    const list = hits.get(car);
    if (list) list.push(what);
    else hits.set(car, [what]);
  };
  for (const c of collisions) {
    hit(c.a, c.b);
    if (c.b !== 'wall') hit(c.b, c.a);
  }
  for (const [name, withWhat] of hits) {
    const d = byName.get(name);
    if (reported.has(name)) continue;
    reported.add(name);
    if (d?.collided)
      d.collided({
        step,
        t,
        with: withWhat,
        speed: collisions.find((c) => c.a === name)?.speedA ?? collisions.find((c) => c.b === name)!.speedB,
      });
  }
}

async function waitUntil(wallMs: number): Promise<void> {
  const ahead = wallMs - performance.now();
  if (ahead > 1) await new Promise((r) => setTimeout(r, ahead));
}
