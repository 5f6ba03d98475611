import { World } from '../../world/world.js';
import { stepSchedule } from '../../world/step-schedule.js';
import { Recorder, type CarSample } from '../../measurement/recorder.js';
import { openChannel } from '../../channel/open-channel.js';
import type { Delivery, V2VChannel } from '../../channel/frames.js';
import { VehicleAgent } from '../../vehicle/vehicle-agent.js';
import { createVehicleApps } from '../../control/create-apps.js';
import type { OccupancyGrid } from '../../map/occupancy-grid.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import type { LaserScan, Odometry, V2VMessage } from '../../control/vehicle-context.js';
import { createScanners } from './scanners.js';
import { centreDistance } from '../../measurement/ttc.js';
import type { RunEvents } from '../run-events.js';

/** UDP payload bytes of a message: its encoding, or the size it asked to be padded to. */
const payloadBytes = (msg: V2VMessage) => Math.max(Buffer.byteLength(JSON.stringify({ ...msg, sizeBytes: undefined })), msg.sizeBytes ?? 0);

export interface SimulatedRunResult {
  simTime: number;
  steps: number;
  interrupted: boolean;
  /** Why the run ended early, when something failed: the figures above are as far as it got. */
  failure?: unknown;
}

/** How often a run hands the event loop a turn, so Ctrl-C (and anything else queued) is seen [ms]. */
const YIELD_EVERY_MS = 50;

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
  opts: { events?: RunEvents; shouldStop?: () => boolean; progressEverySteps?: number } = {},
): Promise<SimulatedRunResult> {
  const world = new World(scenario, grid);
  const schedule = stepSchedule(scenario);
  const names = scenario.vehicles.map((v) => v.name);
  const cars = new Map(world.cars.map((c) => [c.spec.name, c]));
  const scanners = createScanners(world, grid);
  const latestScan = new Map<string, LaserScan>();

  /** Each message's payload size, encoded once when sent: a broadcast has an outcome per receiver. */
  const sizes = new WeakMap<V2VMessage, number>();
  const agents = world.cars.map((car) => {
    const observed = car.spec.observes.map((n) => cars.get(n)!);
    const agent = new VehicleAgent(car.spec.name, createVehicleApps(car.spec), {
      now: () => world.time,
      own: () => world.odometry(car),
      others: () => new Map<string, Odometry>(observed.map((o) => [o.spec.name, world.odometry(o)])),
      scan: () => latestScan.get(car.spec.name),
      publishDrive: (cmd) => {
        car.command = cmd;
      },
      transmit: (msg) => {
        const size = payloadBytes(msg);
        sizes.set(msg, size);
        const to = msg.to === '*' ? names.filter((n) => n !== msg.from) : names.includes(msg.to) ? [msg.to] : [];
        const distances = new Map(to.map((n) => [n, centreDistance(world.odometry(car), world.odometry(cars.get(n)!))]));
        recorder.recordSent({ id: msg.id, from: msg.from, to, type: msg.type, sentAt: msg.sentAt, sizeBytes: size, distances });
        if (to.length) channel?.send({ payload: msg, from: msg.from, to, broadcast: msg.to === '*', sizeBytes: size }, world.time);
      },
      log: (event, detail) => recorder.recordEvent(world.time, car.spec.name, event, detail),
    });
    const period = schedule.controlPeriod(car.spec);
    const inbox: V2VMessage[] = [];
    return { agent, period, car, inbox };
  });
  const byName = new Map(agents.map((a) => [a.agent.name, a]));
  const logOutcomes = (outcomes: readonly Delivery<V2VMessage>[]) => {
    for (const d of outcomes) {
      const msg = d.payload;
      const radio = { ...(d.rxPowerDbm !== undefined ? { rxPowerDbm: d.rxPowerDbm } : {}), ...(d.lineOfSight !== undefined ? { lineOfSight: d.lineOfSight } : {}) };
      const frame = { id: msg.id, from: msg.from, to: d.to, type: msg.type, sentAt: msg.sentAt, sizeBytes: sizes.get(msg) ?? payloadBytes(msg), ...radio };
      if (d.lost) recorder.recordLost({ ...frame, reason: d.lost });
      else recorder.recordReceived({ ...frame, receivedAt: d.at });
    }
    return outcomes.filter((d) => !d.lost);
  };
  const { totalSteps } = schedule;
  const progressEvery = opts.progressEverySteps ?? schedule.progressEvery;

  let samples: readonly CarSample[] = [];
  const record = () => {
    samples = recorder.recordWorld(world, (name) => byName.get(name)!.agent.isBraking());
  };

  record();
  let interrupted = false;
  const motion = () =>
    world.cars.map((c) => {
      const o = world.odometry(c);
      return { x: o.x, y: o.y, vx: o.v * Math.cos(o.yaw), vy: o.v * Math.sin(o.yaw) };
    });
  let channel: V2VChannel<V2VMessage> | undefined;
  let yieldAt = performance.now() + YIELD_EVERY_MS;
  // A failure (diverged physics, a controller's bug) ends the run where it is: what was measured stays.
  let failure: unknown;
  try {
    channel = await openChannel<V2VMessage>(scenario, scenario.network.engine ?? 'builtin', grid, motion);
    while (world.steps < totalSteps) {
      if ((world.steps & 63) === 0 && performance.now() >= yieldAt) {
        await new Promise((r) => setImmediate(r));
        yieldAt = performance.now() + YIELD_EVERY_MS;
      }
      if (opts.shouldStop?.()) {
        interrupted = true;
        break;
      }
      if (channel.advanceTo) await channel.advanceTo(world.time);
      const arrivals = logOutcomes(channel.deliverDue(world.time));
      for (const d of arrivals) byName.get(d.to)?.inbox.push(d.payload);
      for (const sc of scanners) {
        if (world.steps % sc.period === 0) latestScan.set(sc.name, sc.scan());
      }
      for (const a of agents) {
        if (world.steps % a.period !== 0) continue;
        for (const msg of a.inbox.splice(0)) a.agent.receive(msg);
        if (!a.car.collided) a.agent.tick();
      }
      // ns-3 runs the frames just sent while the physics steps (lock-step, two processes)
      channel.prefetch?.((world.steps + 1) * world.timestep);
      recorder.recordCollisions(world.step());
      record();
      if (opts.events && world.steps % progressEvery === 0) {
        opts.events.emit({ type: 'progress', t: world.time, duration: scenario.duration, cars: samples.map((s) => ({ name: s.name, v: s.v, braking: s.braking, collided: s.collided })), minTtc: recorder.minTtc() });
      }
    }
    // Frames that arrived during the last step are logged though no tick is left to hand them over.
    if (channel.advanceTo) await channel.advanceTo(world.time);
    logOutcomes(channel.deliverDue(world.time));
    recorder.closeTransmissions('run-ended');
  } catch (err) {
    failure = err;
  } finally {
    await channel?.close?.();
  }
  return { simTime: world.time, steps: world.steps, interrupted, ...(failure !== undefined ? { failure } : {}) };
}

