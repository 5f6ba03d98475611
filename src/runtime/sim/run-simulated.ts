import { World } from '../../world/world.js';
import { stepSchedule } from '../../world/step-schedule.js';
import { Recorder, type CarSample } from '../../measurement/recorder.js';
import { SimulatedBus } from '../../channel/simulated-bus.js';
import { VehicleAgent } from '../../vehicle/vehicle-agent.js';
import { createVehicleApps } from '../../control/create-apps.js';
import { deriveSeed } from '../../util/random.js';
import type { OccupancyGrid } from '../../map/occupancy-grid.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import type { LaserScan, Odometry, V2VMessage } from '../../control/vehicle-context.js';
import { createScanners } from './scanners.js';
import type { RunEvents } from '../run-events.js';

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
 * Runs a whole scenario in one process in virtual time. Each step: deliver V2V frames that have
 * arrived, run due controllers and apps, advance the physics, record. Deterministic for a seed.
 */
export async function runSimulated(
  scenario: ResolvedScenario,
  grid: OccupancyGrid,
  recorder: Recorder,
  opts: { events?: RunEvents; shouldStop?: () => boolean; progressEverySteps?: number } = {},
): Promise<SimulatedRunResult> {
  const world = new World(scenario, grid);
  const schedule = stepSchedule(scenario);
  const bus = new SimulatedBus<V2VMessage>({ ...scenario.network, seed: deriveSeed(scenario.seed, 'v2v-bus') });
  const names = scenario.vehicles.map((v) => v.name);
  const cars = new Map(world.cars.map((c) => [c.spec.name, c]));
  const scanners = createScanners(world, grid);
  const latestScan = new Map<string, LaserScan>();

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
        const size = Buffer.byteLength(JSON.stringify(msg));
        const to = msg.to === '*' ? names.filter((n) => n !== msg.from) : [msg.to];
        recorder.recordSent(msg.id);
        bus.send({ payload: msg, from: msg.from, to, sizeBytes: size }, world.time);
      },
      log: (event, detail) => recorder.recordEvent(world.time, car.spec.name, event, detail),
    });
    const period = schedule.controlPeriod(car.spec);
    return { agent, period, car };
  });
  const byName = new Map(agents.map((a) => [a.agent.name, a.agent]));
  const { totalSteps } = schedule;
  const progressEvery = opts.progressEverySteps ?? schedule.progressEvery;

  let samples: readonly CarSample[] = [];
  const record = () => {
    samples = recorder.recordWorld(world, (name) => byName.get(name)!.isBraking());
  };

  record();
  let interrupted = false;
  let yieldAt = performance.now() + YIELD_EVERY_MS;
  // A failure (diverged physics, a controller's bug) ends the run where it is: what was measured stays.
  let failure: unknown;
  try {
    while (world.steps < totalSteps) {
      if ((world.steps & 63) === 0 && performance.now() >= yieldAt) {
        await new Promise((r) => setImmediate(r));
        yieldAt = performance.now() + YIELD_EVERY_MS;
      }
      if (opts.shouldStop?.()) {
        interrupted = true;
        break;
      }
      for (const d of bus.deliverDue(world.time)) {
        const msg = d.payload;
        recorder.recordReceived({ id: msg.id, from: msg.from, to: d.to, type: msg.type, sentAt: msg.sentAt, receivedAt: world.time, sizeBytes: Buffer.byteLength(JSON.stringify(msg)) });
        byName.get(d.to)?.receive(msg);
      }
      for (const sc of scanners) {
        if (world.steps % sc.period === 0) latestScan.set(sc.name, sc.scan());
      }
      for (const a of agents) {
        if (!a.car.collided && world.steps % a.period === 0) a.agent.tick();
      }
      recorder.recordCollisions(world.step());
      record();
      if (opts.events && world.steps % progressEvery === 0) {
        opts.events.emit({ type: 'progress', t: world.time, duration: scenario.duration, cars: samples.map((s) => ({ name: s.name, v: s.v, braking: s.braking, collided: s.collided })), minTtc: recorder.minTtc() });
      }
    }
  } catch (err) {
    failure = err;
  }
  return { simTime: world.time, steps: world.steps, interrupted, ...(failure !== undefined ? { failure } : {}) };
}

