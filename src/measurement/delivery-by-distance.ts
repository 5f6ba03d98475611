import { CHANNEL_LOSS_REASONS, type LossReason } from '../channel/frames.js';
import type { MeasuredCbr } from './channel-busy-log.js';
import type { V2VRowFields } from './v2v-row.js';

/**
 * Delivery ratio against the distance between sender and receiver, with each loss reason's share,
 * and how far two such tables (two channel engines, say) lie apart. Pure: v2v.csv rows in.
 */

/** What is read of a v2v.csv row. */
export type DistanceRow = Pick<V2VRowFields, 'id' | 'from' | 'to' | 'outcome' | 'distanceM'>;

export interface DistanceBin {
  /** [from, to) metres, the distance when the frame was sent. */
  from: number;
  to: number;
  /** (frame, receiver) rows whose fate is known. */
  frames: number;
  delivered: number;
  /** delivered / frames; null for a bin with no frame. */
  delivery: number | null;
  /** Each loss reason's share of the bin's frames (so delivery plus every share is 1). */
  losses: Record<string, number>;
}

export interface DeliveryTable {
  binWidth: number;
  maxDistance: number;
  /** Every bin from 0 to maxDistance, empty ones included. */
  bins: DistanceBin[];
  /** The loss reasons seen, in LOSS_ORDER. */
  reasons: string[];
}

export const DEFAULT_BIN_M = 50;
export const DEFAULT_MAX_DISTANCE_M = 500;

/** The fate of these rows is unknown: neither delivered nor lost. */
const IN_FLIGHT = 'run-ended';
/** frames.ts's loss reasons in its order, then emulation's catch-all. */
const LOSS_ORDER: readonly (LossReason | 'not-received')[] = [...CHANNEL_LOSS_REASONS, 'not-received'];

/** Reasons in LOSS_ORDER, any other after them by name. */
export function orderReasons(reasons: Iterable<string>): string[] {
  const rank = (r: string) => {
    const k = LOSS_ORDER.indexOf(r as LossReason);
    return k === -1 ? LOSS_ORDER.length : k;
  };
  return [...new Set(reasons)].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The rows of broadcast frames: those with a row for every car but their sender (a unicast has one
 * receiver; with two cars the two cannot be told apart, and both count).
 */
export function broadcastRows<R extends DistanceRow>(rows: readonly R[], cars: readonly string[]): R[] {
  const receivers = new Map<string, Set<string>>();
  for (const r of rows) {
    let to = receivers.get(r.id);
    if (!to) receivers.set(r.id, (to = new Set()));
    to.add(r.to);
  }
  const others = cars.length - 1;
  return rows.filter((r) => receivers.get(r.id)!.size === others);
}

/** Rows binned by distance, `binWidth` wide from 0 to `maxDistance`; rows beyond it, of unknown distance or still in flight at the end are left out. */
export function deliveryTable(
  rows: readonly DistanceRow[],
  { binWidth = DEFAULT_BIN_M, maxDistance = DEFAULT_MAX_DISTANCE_M }: { binWidth?: number; maxDistance?: number } = {},
): DeliveryTable {
  if (!(binWidth > 0) || !(maxDistance > 0)) throw new RangeError(`bins need a positive width and range (${binWidth}, ${maxDistance})`);
  const count = Math.ceil(maxDistance / binWidth - 1e-9);
  const counts = Array.from({ length: count }, () => ({ frames: 0, delivered: 0, lost: new Map<string, number>() }));
  const seen = new Set<string>();
  for (const r of rows) {
    if (r.outcome === IN_FLIGHT || !(r.distanceM >= 0) || r.distanceM >= maxDistance) continue;
    const bin = counts[Math.min(count - 1, Math.floor(r.distanceM / binWidth))];
    bin.frames++;
    if (r.outcome === 'delivered') bin.delivered++;
    else {
      bin.lost.set(r.outcome, (bin.lost.get(r.outcome) ?? 0) + 1);
      seen.add(r.outcome);
    }
  }
  const share = (n: number, of: number) => +(n / of).toFixed(6);
  return {
    binWidth,
    maxDistance,
    reasons: orderReasons(seen),
    bins: counts.map((c, k) => ({
      from: +(k * binWidth).toFixed(6),
      to: +Math.min(maxDistance, (k + 1) * binWidth).toFixed(6),
      frames: c.frames,
      delivered: c.delivered,
      delivery: c.frames ? share(c.delivered, c.frames) : null,
      losses: Object.fromEntries(orderReasons(c.lost.keys()).map((r) => [r, share(c.lost.get(r)!, c.frames)])),
    })),
  };
}

export interface TableDeviation {
  /** Bins with frames in both tables: the deviations are taken over these. */
  bins: number;
  /** Mean absolute deviation of the delivery ratio; null with no bin in common. */
  delivery: number | null;
  /** The same for each loss reason either table has (a reason a bin lacks is a share of 0); none with no bin in common. */
  losses: Record<string, number>;
}

/** Mean absolute deviation between two tables of the same bins, over the bins both have frames in. */
export function tableDeviation(a: DeliveryTable, b: DeliveryTable): TableDeviation {
  if (a.binWidth !== b.binWidth || a.bins.length !== b.bins.length)
    throw new RangeError('the two tables have different bins: build both with the same width and range');
  const both = a.bins.flatMap((bin, k) => (bin.frames && b.bins[k].frames ? [[bin, b.bins[k]] as const] : []));
  const reasons = orderReasons([...a.reasons, ...b.reasons]);
  const mad = (of: (bin: DistanceBin) => number) =>
    both.length ? +(both.reduce((s, [x, y]) => s + Math.abs(of(x) - of(y)), 0) / both.length).toFixed(6) : null;
  return {
    bins: both.length,
    delivery: mad((bin) => bin.delivery!),
    losses: both.length ? Object.fromEntries(reasons.map((r) => [r, mad((bin) => bin.losses[r] ?? 0)!])) : {},
  };
}

export interface CbrDeviation {
  /** |mean a - mean b| over every car and window. */
  mean: number;
  /** Mean absolute deviation of the per-car means, over the cars both have. */
  perCar: number | null;
}

/** How far two runs' measured CBRs lie apart; null when either run measured none. */
export function cbrDeviation(a: MeasuredCbr | undefined, b: MeasuredCbr | undefined): CbrDeviation | null {
  if (!a || !b) return null;
  const other = new Map(b.per_car.map((c) => [c.vehicle, c.mean]));
  const pairs = a.per_car.flatMap((c) => (other.has(c.vehicle) ? [Math.abs(c.mean - other.get(c.vehicle)!)] : []));
  return {
    mean: +Math.abs(a.mean - b.mean).toFixed(6),
    perCar: pairs.length ? +(pairs.reduce((s, d) => s + d, 0) / pairs.length).toFixed(6) : null,
  };
}
