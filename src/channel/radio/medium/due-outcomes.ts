import type { ChannelFrame, Delivery, LossReason } from '../../frames.js';
import type { OutcomeTally } from '../../outcome-tally.js';

/** Fleets: outcomes counted here; only deliveries to the cars in `listeners` (whose apps act on them) are listed. */
export interface FleetTally {
  outcomes: OutcomeTally;
  listeners: ReadonlySet<string>;
  /** A payload every receiver drops at its gate (a malformed CAM): counted `malformed`, not `delivered`. */
  droppedAtReceiver?: (payload: unknown) => boolean;
}

/**
 * What the scenario adds on top of the radio's own outcome (wifi-80211p's `delay` and `loss`): each
 * delivery comes `delay` later, and is lost (`channel-loss`) with probability `loss`, per receiver.
 */
export interface AddedDelayLoss {
  delay: number;
  loss: number;
  /** Seeded draws in [0, 1), one per delivery when `loss` > 0. */
  draw: () => number;
}

/**
 * The outcomes a radio decides ahead of the runtime's clock (a frame's end is known when it starts):
 * counted in a fleet's tally or listed, and handed out once due, in time order (`deliverDue`).
 */
export class DueOutcomes<P> {
  private pending: Delivery<P>[] = [];

  constructor(
    private readonly tally: FleetTally | undefined,
    private readonly added?: AddedDelayLoss,
  ) {}

  /** One addressee's outcome (`lost` undefined: delivered); `distance` NaN when not computed. */
  settle(
    payload: P,
    to: string,
    sentAt: number,
    at: number,
    lost: LossReason | undefined,
    distance: number,
    rxPowerDbm?: number,
    lineOfSight?: boolean,
  ): void {
    const added = this.added;
    if (added && !lost) {
      if (added.loss > 0 && added.draw() < added.loss) lost = 'channel-loss';
      else at += added.delay;
    }
    const tally = this.tally;
    if (tally) {
      const dropped = !lost && tally.droppedAtReceiver?.(payload) === true;
      tally.outcomes.add(lost ?? (dropped ? 'malformed' : 'delivered'), distance, at - sentAt);
      if (lost || dropped || !tally.listeners.has(to)) return;
    }
    const delivery: Delivery<P> = { payload, to, at };
    if (lost) delivery.lost = lost;
    if (rxPowerDbm !== undefined) delivery.rxPowerDbm = rxPowerDbm;
    if (lineOfSight !== undefined) delivery.lineOfSight = lineOfSight;
    this.pending.push(delivery);
  }

  /** A frame lost before it reached the air (a queue drop): lost at every addressee. */
  lostEverywhere(frame: ChannelFrame<P>, reason: LossReason, at: number): void {
    for (const to of frame.to) {
      if (to === frame.from) continue;
      if (this.tally) this.tally.outcomes.add(reason, Number.POSITIVE_INFINITY, 0);
      else this.pending.push({ payload: frame.payload, to, at, lost: reason });
    }
  }

  /** Removes and returns, in time order, every listed outcome at or before `now`. */
  takeDue(now: number): Delivery<P>[] {
    const due: Delivery<P>[] = [];
    const later: Delivery<P>[] = [];
    for (const d of this.pending) (d.at <= now ? due : later).push(d);
    this.pending = later;
    return due.sort((a, b) => a.at - b.at);
  }
}
