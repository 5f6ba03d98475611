import { DEFAULT_BIN_M, DEFAULT_MAX_DISTANCE_M, type DeliveryTable, orderReasons } from './delivery-by-distance.js';

/**
 * (frame, receiver) outcomes counted in fine distance bins instead of listed: a fleet run's tally,
 * or its delivery-distance.csv read back. Pure.
 */
export interface BinnedOutcomes {
  /** Bin k holds the outcomes at [k * binWidth, (k + 1) * binWidth) metres from the sender when it sent. */
  binWidth: number;
  /** counts[outcome][k]: `delivered` or a loss reason; a bin past an array's end counts 0. */
  counts: Readonly<Record<string, readonly number[]>>;
}

const DELIVERED = 'delivered';
/** Frames still in flight at the end have no known fate: left out, as deliveryTable leaves them out. */
const IN_FLIGHT = 'run-ended';

/**
 * The delivery table (delivery-by-distance.ts's shape) of counted outcomes, in bins `binWidth`
 * wide to `maxDistance`: both must be whole multiples of the counts' own bins.
 */
export function tableOfBinned(
  b: BinnedOutcomes,
  { binWidth = DEFAULT_BIN_M, maxDistance = DEFAULT_MAX_DISTANCE_M }: { binWidth?: number; maxDistance?: number } = {},
): DeliveryTable {
  const per = binWidth / b.binWidth;
  const total = maxDistance / b.binWidth;
  const whole = (v: number) => v >= 1 && Math.abs(v - Math.round(v)) < 1e-9;
  if (!whole(per) || !whole(total))
    throw new RangeError(
      `the outcomes are counted in ${b.binWidth} m bins: the bin width (${binWidth} m) and the range (${maxDistance} m) must be multiples of ${b.binWidth} m`,
    );
  const count = Math.ceil(Math.round(total) / Math.round(per));
  const outcomes = Object.keys(b.counts).filter((o) => o !== IN_FLIGHT);
  const sum = (outcome: string, k: number) => {
    const source = b.counts[outcome];
    let n = 0;
    const end = Math.min(Math.round(total), (k + 1) * Math.round(per));
    for (let s = k * Math.round(per); s < end; s++) n += source[s] ?? 0;
    return n;
  };
  const seen = new Set<string>();
  const share = (n: number, of: number) => +(n / of).toFixed(6);
  const bins = Array.from({ length: count }, (_, k) => {
    const lost = new Map<string, number>();
    let delivered = 0;
    for (const o of outcomes) {
      const n = sum(o, k);
      if (!n) continue;
      if (o === DELIVERED) delivered = n;
      else {
        lost.set(o, n);
        seen.add(o);
      }
    }
    const frames = delivered + [...lost.values()].reduce((a, c) => a + c, 0);
    return {
      from: +(k * binWidth).toFixed(6),
      to: +Math.min(maxDistance, (k + 1) * binWidth).toFixed(6),
      frames,
      delivered,
      delivery: frames ? share(delivered, frames) : null,
      losses: Object.fromEntries(orderReasons(lost.keys()).map((r) => [r, share(lost.get(r)!, frames)])),
    };
  });
  return { binWidth, maxDistance, reasons: orderReasons(seen), bins };
}

/** The same counts in bins `binWidth` wide, a whole multiple of their own (10 m bins summed into 50 m ones). */
export function rebinned(b: BinnedOutcomes, binWidth: number): BinnedOutcomes {
  const per = Math.round(binWidth / b.binWidth);
  if (per < 1 || Math.abs(per * b.binWidth - binWidth) > 1e-9)
    throw new RangeError(`counts in ${b.binWidth} m bins cannot be summed into ${binWidth} m bins`);
  const counts = Object.fromEntries(
    Object.entries(b.counts).map(([o, c]) => {
      const out = new Array<number>(Math.ceil(c.length / per)).fill(0);
      c.forEach((n, k) => (out[Math.floor(k / per)] += n));
      return [o, out];
    }),
  );
  return { binWidth, counts };
}

/** Several runs' counts added up, bin by bin (all in the same bins). */
export function pooled(all: readonly BinnedOutcomes[]): BinnedOutcomes | undefined {
  if (!all.length) return undefined;
  const counts: Record<string, number[]> = {};
  for (const b of all)
    for (const [o, c] of Object.entries(b.counts)) {
      const sum = (counts[o] ??= []);
      c.forEach((n, k) => (sum[k] = (sum[k] ?? 0) + n));
    }
  return { binWidth: all[0].binWidth, counts };
}
