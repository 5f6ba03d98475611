import type { V2VMessage } from '../../core/control/vehicle-context.js';
import type { DriveCommand } from '../../core/physics/types.js';
import type { WorldCar } from '../../world/world.js';

/**
 * Drive commands waiting for the step they act in (a car's compute time can put one several steps
 * after its tick). For a step, every command due by then is applied in order of due step and then of
 * issue, so the latest one ready wins, as the newest command on the wire does in emulation.
 */
export class PendingCommands {
  private readonly queue: { car: WorldCar; step: number; command: DriveCommand }[] = [];

  add(car: WorldCar, step: number, command: DriveCommand): void {
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1].step > step) i--;
    this.queue.splice(i, 0, { car, step, command });
  }

  /** Applies every command that acts in the physics update computing step `step`. */
  applyFor(step: number): void {
    let n = 0;
    while (n < this.queue.length && this.queue[n].step <= step) {
      this.queue[n].car.command = this.queue[n].command;
      n++;
    }
    if (n) this.queue.splice(0, n);
  }
}

/** V2V messages waiting for their send time (tick time plus compute time), in order of that time. */
export class PendingSends {
  private queue: V2VMessage[] = [];

  add(msgs: readonly V2VMessage[]): void {
    // Each goes after every queued message not later than it, as a stable sort would put it: messages
    // sent at one time keep the order they were sent in. Most belong at the end (a fleet's cars each add theirs).
    for (const m of msgs) {
      let i = this.queue.length;
      while (i > 0 && this.queue[i - 1].sentAt > m.sentAt) i--;
      if (i === this.queue.length) this.queue.push(m);
      else this.queue.splice(i, 0, m);
    }
  }

  /** Removes and returns, in time order, the messages that leave before `t`. */
  dueBefore(t: number): V2VMessage[] {
    let n = 0;
    while (n < this.queue.length && this.queue[n].sentAt < t - 1e-12) n++;
    return n ? this.queue.splice(0, n) : [];
  }
}
