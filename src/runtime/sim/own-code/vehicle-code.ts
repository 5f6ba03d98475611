import type { CollisionReport } from '../../rosbridge/control-topics.js';
import type { CollectedAnswers, LinkRefusal, TickAnswer, TickInput } from './own-code-link.js';

/**
 * A vehicle driven by code outside cavsim's process, as the simulated runtime's step loop sees it:
 * own code cavsim starts (`command:`, `image:`) or an external device that connects by itself.
 */
export interface VehicleCode {
  readonly name: string;
  /** Settles when the code is connected and said ready; rejects (naming the vehicle) when it does not in time. */
  whenReady(): Promise<void>;
  start(): void;
  /** Behind the barrier: publishes the tick and waits for the answer. */
  tick(input: TickInput): Promise<TickAnswer>;
  /** Without the barrier (an external device with `barrier: false`): ticks are published, answers collected. */
  readonly freeRunning?: { publish(input: TickInput): void; collect(): CollectedAnswers };
  collided(report: CollisionReport): void;
  /** What the link refused from the code since the last call (the step loop records it at its virtual time). */
  takeRefusals?(): LinkRefusal[];
  /** Tells the code to stop and ends the link. Harmless twice. */
  close(reason: string): Promise<void>;
}
