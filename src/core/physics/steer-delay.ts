/**
 * RaceCar's steering delay: while fewer than `delaySteps` commands are queued the applied angle
 * is 0 (not the previous command, not the current wheel angle); afterwards each step applies
 * the command received `delaySteps` steps earlier. A fixed ring, so nothing is allocated per step.
 */
export class SteerDelayLine {
  private readonly slots: Float64Array;
  private count = 0;
  private head = 0; // index of the oldest queued command

  constructor(readonly delaySteps: number) {
    if (!Number.isInteger(delaySteps) || delaySteps < 0) {
      throw new RangeError(`steer delay must be a non-negative integer, got ${delaySteps}`);
    }
    this.slots = new Float64Array(Math.max(delaySteps, 1));
  }

  /** Queues `command` and returns the angle to apply this step. */
  push(command: number): number {
    if (this.delaySteps === 0) return command;
    if (this.count < this.delaySteps) {
      this.slots[(this.head + this.count) % this.delaySteps] = command;
      this.count++;
      return 0;
    }
    const applied = this.slots[this.head];
    this.slots[this.head] = command;
    this.head = (this.head + 1) % this.delaySteps;
    return applied;
  }

  clear(): void {
    this.count = 0;
    this.head = 0;
  }
}
