import type { LaserScan, VehicleApp, VehicleContext } from './vehicle-context.js';

/** Speed that falls linearly from `speed` (straight) to `cornerSpeed` (full lock). */
export interface SpeedBySteer {
  speed: number; // [m/s] when driving straight
  cornerSpeed: number; // [m/s] at full steering lock
}

export function speedForSteer(steer: number, maxSteer: number, s: SpeedBySteer): number {
  const f = Math.min(1, Math.abs(steer) / maxSteer);
  return s.speed + (s.cornerSpeed - s.speed) * f;
}

export interface GapFollowOptions extends SpeedBySteer {
  bubbleRadius: number; // [m] blanked out around the closest obstacle
  fov: number; // [rad] searched, centred ahead
  clipRange: number; // [m] ranges are clipped to this
  freeRange: number; // [m] a beam longer than this belongs to a gap
  smoothing: number; // beams in the moving-average window
  gain: number; // steering angle per radian of best-point bearing
  maxSteer: number; // [rad]
}

export interface GapChoice {
  /** Bearing of the best point, in the car frame [rad], left positive. */
  bearing: number;
  bestIndex: number;
  gapStart: number;
  gapEnd: number; // inclusive
}

// Ranges within this of the deepest one count as equally deep [m]: noise must not pick the point.
const DEPTH_TIE = 0.05;

/**
 * Follow the gap: clip and smooth the beams in the field of view, blank a bubble around the
 * closest point, take the widest run of beams longer than freeRange, and aim at the middle of the
 * deepest stretch of that run. Undefined when every beam is blocked.
 */
export function chooseGap(
  scan: LaserScan,
  o: Pick<GapFollowOptions, 'bubbleRadius' | 'fov' | 'clipRange' | 'freeRange' | 'smoothing'>,
): GapChoice | undefined {
  const { angleMin, angleIncrement, ranges } = scan;
  const first = Math.max(0, Math.ceil((-o.fov / 2 - angleMin) / angleIncrement - 1e-9));
  const last = Math.min(ranges.length - 1, Math.floor((o.fov / 2 - angleMin) / angleIncrement + 1e-9));
  const n = last - first + 1;
  if (n < 1) return undefined;

  const clipped = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const r = ranges[first + i];
    clipped[i] = Number.isFinite(r) ? Math.min(Math.max(r, 0), o.clipRange) : o.clipRange;
  }
  const work = movingAverage(clipped, o.smoothing);

  let closest = 0;
  for (let i = 1; i < n; i++) if (work[i] < work[closest]) closest = i;
  const rc = work[closest];
  const halfAngle = rc <= o.bubbleRadius ? Math.PI / 2 : Math.asin(o.bubbleRadius / rc);
  const halfBeams = Math.ceil(halfAngle / angleIncrement);
  for (let i = Math.max(0, closest - halfBeams); i <= Math.min(n - 1, closest + halfBeams); i++) work[i] = 0;

  let gapStart = -1;
  let gapEnd = -1;
  for (let i = 0; i < n; ) {
    if (work[i] <= o.freeRange) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < n && work[j + 1] > o.freeRange) j++;
    if (j - i > gapEnd - gapStart) {
      gapStart = i;
      gapEnd = j;
    }
    i = j + 1;
  }
  if (gapStart < 0) return undefined;

  let deepest = 0;
  for (let i = gapStart; i <= gapEnd; i++) deepest = Math.max(deepest, work[i]);
  let bestFrom = gapStart;
  let bestTo = gapStart - 1;
  for (let i = gapStart; i <= gapEnd; ) {
    if (work[i] < deepest - DEPTH_TIE) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 <= gapEnd && work[j + 1] >= deepest - DEPTH_TIE) j++;
    if (j - i > bestTo - bestFrom) {
      bestFrom = i;
      bestTo = j;
    }
    i = j + 1;
  }
  const best = (bestFrom + bestTo) >> 1;
  return {
    bearing: angleMin + (first + best) * angleIncrement,
    bestIndex: first + best,
    gapStart: first + gapStart,
    gapEnd: first + gapEnd,
  };
}

function movingAverage(values: Float64Array, window: number): Float64Array {
  const half = Math.max(0, Math.floor(window / 2));
  if (half === 0) return values.slice();
  const n = values.length;
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + values[i];
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const lo = Math.max(0, i - half);
    const hi = Math.min(n, i + half + 1);
    out[i] = (prefix[hi] - prefix[lo]) / (hi - lo);
  }
  return out;
}

/** Reactive gap follower: needs only the scan. Stops when no gap is left. */
export function createGapFollow(opts: GapFollowOptions): VehicleApp {
  return {
    onTick(ctx: VehicleContext) {
      const scan = ctx.scan();
      if (!scan) return;
      const gap = chooseGap(scan, opts);
      if (!gap) {
        ctx.drive({ speed: 0, steer: 0 });
        return;
      }
      const steer = Math.max(-opts.maxSteer, Math.min(opts.maxSteer, opts.gain * gap.bearing));
      ctx.drive({ speed: speedForSteer(steer, opts.maxSteer, opts), steer });
    },
  };
}
