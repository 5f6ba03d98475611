import type { ScanLog } from '../../../measurement/scan-log.js';
import type { CollisionEvent, World } from '../../../world/world.js';
import type { BridgeServer } from '../../rosbridge/bridge-server.js';
import type { CollisionReport } from '../../rosbridge/control-topics.js';
import { TOPICS } from '../../rosbridge/control-topics.js';
import { clockMsg, odometryJson, stringMsg } from '../../rosbridge/ros-messages.js';
import type { ScanSource } from './warm-up/simulator-warm-up.js';

/** What the simulator publishes of the world after each step: the clock, every car's odometry, scans, collisions. */
export class SimulatorPublisher {
  private readonly collided = new Set<string>();

  constructor(
    private readonly world: World,
    private readonly bridge: BridgeServer,
    private readonly scans: readonly ScanSource[],
    private readonly stepNs: bigint,
    private readonly scanLog: ScanLog | undefined,
    private readonly log: (line: string) => void,
  ) {}

  odometry(): void {
    const stampNs = BigInt(this.world.steps) * this.stepNs;
    this.bridge.publish(TOPICS.clock, clockMsg(stampNs));
    for (const car of this.world.cars)
      this.bridge.publishJson(TOPICS.odom(car.spec.name), () => odometryJson(car.spec.name, this.world.odometry(car), stampNs));
  }

  /** Scans due in this step, in the order the simulated runtime takes them (its noise sequence is the same). */
  scansDue(): void {
    const step = this.world.steps;
    const stampNs = BigInt(step) * this.stepNs;
    for (const s of this.scans) {
      if (step % s.scanner.period !== 0) continue;
      const scan = s.scanner.scan();
      this.bridge.publishJson(s.topic, () => s.encoder.encode(scan, stampNs));
      this.scanLog?.add(s.scanner.name, scan);
    }
  }

  /** One latched notice per car, in the step it first collided; a frozen car hit again is not told twice. */
  collisions(events: readonly CollisionEvent[]): void {
    const notices = new Map<string, CollisionReport>();
    const step = this.world.steps;
    const add = (car: string, other: string, speed: number) => {
      if (this.collided.has(car)) return;
      const n = notices.get(car);
      if (n) n.with.push(other);
      else notices.set(car, { vehicle: car, step, t_s: this.world.time, with: [other], speed_mps: speed });
    };
    for (const e of events) {
      add(e.a, e.b, e.speedA);
      if (e.b !== 'wall') add(e.b, e.a, e.speedB);
    }
    for (const [car, notice] of notices) {
      this.collided.add(car);
      this.bridge.publish(TOPICS.collision(car), stringMsg(JSON.stringify(notice)));
      this.log(`simulator: ${car} collided with ${notice.with.join(', ')} at t=${notice.t_s.toFixed(2)} s (step ${step})`);
    }
  }
}
