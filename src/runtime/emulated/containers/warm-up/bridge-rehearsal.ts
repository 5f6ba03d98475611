import type { ResolvedScenario } from '../../../../scenario/resolved.js';
import { BridgeClient } from '../../../rosbridge/bridge-client.js';
import { BridgeServer } from '../../../rosbridge/bridge-server.js';
import { driveMsg, MSG_TYPES, odometryJson, optionalStampNs, parseDriveMsg, parseOdometryMsg } from '../../../rosbridge/ros-messages.js';
import { TOPICS } from '../../../rosbridge/topic-names.js';
import { coastingOdometry } from './rehearsal-odometry.js';

export interface BridgeRehearsalLimits {
  /** Scratch cars on the scratch bridge (at most the scenario's). */
  cars: number;
  steps: number;
  budgetMs: number;
}

const DEFAULT_LIMITS: BridgeRehearsalLimits = { cars: 4, steps: 150, budgetMs: 1_000 };
/** A step whose answers have not all come by then goes on without them. */
const ANSWER_WAIT_MS = 50;

/**
 * The simulator's side of the control link, rehearsed before the run on a scratch bridge on
 * loopback in its own process: odometry published to a few scratch cars (rosbridge clients, as a
 * vehicle's), their drive commands received and parsed, step after step. The WebSocket server's
 * send and receive paths are otherwise compiled in the run's first steps, with every car waiting
 * on them. Twice, on two bridges, for the reason the vehicle rehearses twice
 * (control-link-rehearsal.ts). Resolves with the steps the cars answered, over both.
 */
export async function rehearseBridge(scenario: ResolvedScenario, limits: BridgeRehearsalLimits = DEFAULT_LIMITS): Promise<number> {
  const half = { ...limits, budgetMs: limits.budgetMs / 2 };
  return (await rehearseOnce(scenario, half)) + (await rehearseOnce(scenario, half));
}

async function rehearseOnce(scenario: ResolvedScenario, limits: BridgeRehearsalLimits): Promise<number> {
  const cars = scenario.vehicles.slice(0, Math.max(1, limits.cars));
  const stepNs = BigInt(Math.round(scenario.physics.timestep * 1e9));
  const deadline = performance.now() + limits.budgetMs;
  const server = await BridgeServer.listen({ host: '127.0.0.1', port: 0 });
  const clients: BridgeClient[] = [];
  let answeredSteps = 0;
  try {
    let step = 0;
    let waiting = new Set<string>();
    let advance: () => void = () => {};
    for (const car of cars) {
      server.advertise(TOPICS.odom(car.name), MSG_TYPES.odometry, { latch: true });
      server.subscribe(TOPICS.drive(car.name), MSG_TYPES.drive, (msg) => {
        parseDriveMsg(msg);
        if (optionalStampNs(msg) !== BigInt(step) * stepNs) return;
        waiting.delete(car.name);
        if (!waiting.size) advance();
      });
    }
    const publishStep = () => {
      waiting = new Set(cars.map((c) => c.name));
      const t = step * scenario.physics.timestep;
      for (const car of cars)
        server.publishJson(TOPICS.odom(car.name), () => odometryJson(car.name, coastingOdometry(car, t, step), BigInt(step) * stepNs));
    };
    publishStep();
    for (const car of cars) clients.push(await scratchCar(server.port, car.name));
    while (step < limits.steps && performance.now() < deadline) {
      const answered = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ANSWER_WAIT_MS);
        advance = () => {
          clearTimeout(timer);
          resolve(true);
        };
        if (!waiting.size) advance();
      });
      if (answered) answeredSteps++;
      step++;
      publishStep();
    }
    return answeredSteps;
  } finally {
    await Promise.all(clients.map((c) => c.close(1_000)));
    await server.close();
  }
}

/** A rosbridge client that answers each odometry of `car` with a drive command stamped with it. */
async function scratchCar(port: number, car: string): Promise<BridgeClient> {
  const client = await BridgeClient.connect(`ws://127.0.0.1:${port}`);
  client.advertise(TOPICS.drive(car), MSG_TYPES.drive);
  client.subscribe(TOPICS.odom(car), MSG_TYPES.odometry, (msg) => {
    const odom = parseOdometryMsg(msg);
    client.publish(TOPICS.drive(car), driveMsg({ speed: odom.v, steer: odom.steer }, odom.stampNs, `${car}/base_link`));
  });
  return client;
}
