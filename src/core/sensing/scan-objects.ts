/**
 * Perceived objects from a 2-D lidar scan: clustering and tracking, as a collective perception
 * service needs them (the CPM's perceived object container).
 *
 * Clustering: consecutive beams whose hit points are at most `gap` apart form one cluster; a
 * max-range (or invalid) return ends a cluster. A cluster of fewer than `minPoints` points is
 * noise, one wider than `maxExtent` (its first to its last point) is taken for the static
 * environment (a wall), not an object. With a map, a return the map explains (`isWall`, e.g.
 * wall-returns.ts) is the environment too: it ends a cluster and is in none, so a building corner
 * or a short stretch of wall is never an object. An object's position is the centre (mean) of its points.
 *
 * Tracking: each update associates the clusters with the known objects nearest first (a cluster
 * and an object at most `associationDistance` apart), estimates an associated object's velocity
 * from its displacement since the last update (blended with the estimate so far by
 * `velocityGain`) and gives a new object velocity zero. An object
 * not seen for `forgetAfter` is dropped; its ID (0..255, the CPM's objectID) is reused last.
 */
export interface ScanLike {
  t: number;
  angleMin: number;
  angleIncrement: number;
  rangeMax: number;
  ranges: ArrayLike<number>;
}

export interface ClusterOptions {
  gap: number; // [m]
  minPoints: number;
  maxExtent: number; // [m]
}

export const CLUSTER_DEFAULTS: ClusterOptions = { gap: 0.3, minPoints: 3, maxExtent: 1.5 };

/** A cluster in the sensor's frame (x forward, y to the left) [m]. */
export interface ScanCluster {
  x: number;
  y: number;
  /** Distance between its first and last point [m]. */
  extent: number;
  points: number;
}

/** A return this close to the maximum range (1 % of it, at least 5 cm: the range noise) is "nothing hit". */
const maxRangeMargin = (rangeMax: number) => Math.max(0.05, 0.01 * rangeMax);

export function clusterScan(
  scan: ScanLike,
  opts: ClusterOptions = CLUSTER_DEFAULTS,
  isWall?: (angle: number, range: number) => boolean,
): ScanCluster[] {
  const clusters: ScanCluster[] = [];
  let xs: number[] = [];
  let ys: number[] = [];
  const close = () => {
    if (xs.length >= opts.minPoints) {
      const extent = Math.hypot(xs[xs.length - 1] - xs[0], ys[ys.length - 1] - ys[0]);
      if (extent <= opts.maxExtent) {
        const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
        clusters.push({ x: mean(xs), y: mean(ys), extent, points: xs.length });
      }
    }
    xs = [];
    ys = [];
  };
  const limit = scan.rangeMax - maxRangeMargin(scan.rangeMax);
  for (let i = 0; i < scan.ranges.length; i++) {
    const r = scan.ranges[i];
    if (!Number.isFinite(r) || r <= 0 || r >= limit) {
      close();
      continue;
    }
    const a = scan.angleMin + i * scan.angleIncrement;
    if (isWall?.(a, r)) {
      close();
      continue;
    }
    const x = r * Math.cos(a);
    const y = r * Math.sin(a);
    if (xs.length && Math.hypot(x - xs[xs.length - 1], y - ys[ys.length - 1]) > opts.gap) close();
    xs.push(x);
    ys.push(y);
  }
  close();
  return clusters;
}

/** A cluster in the map frame, as the tracker takes it. */
export interface Detection {
  x: number;
  y: number;
  extent: number;
}

export interface TrackedObject {
  id: number; // 0..255
  x: number; // map frame [m]
  y: number;
  vx: number; // [m/s]
  vy: number;
  extent: number;
  firstSeen: number; // [s]
  lastSeen: number;
  /** Whether it has ever moved faster than the tracker's `movingSpeed`. */
  hasMoved: boolean;
  /** Whether its velocity has been estimated (it was seen in two updates). */
  tracked: boolean;
}

export interface TrackerOptions {
  associationDistance: number; // [m]
  forgetAfter: number; // [s]
  movingSpeed: number; // [m/s]
  /** Weight of a new displacement's velocity against the estimate so far (1: the last displacement alone). */
  velocityGain: number;
}

export const TRACKER_DEFAULTS: TrackerOptions = { associationDistance: 1.5, forgetAfter: 0.5, movingSpeed: 0.5, velocityGain: 0.5 };

const ID_COUNT = 256;

export class ObjectTracker {
  private readonly objects: TrackedObject[] = [];
  private nextId = 0;

  constructor(private readonly opts: TrackerOptions = TRACKER_DEFAULTS) {}

  /** Takes the detections of a scan at `t`; returns the objects seen in it. */
  update(t: number, detections: readonly Detection[]): TrackedObject[] {
    const pairs: { d: number; o: number; dist: number }[] = [];
    detections.forEach((det, d) =>
      this.objects.forEach((obj, o) => {
        const dist = Math.hypot(det.x - obj.x, det.y - obj.y);
        if (dist <= this.opts.associationDistance) pairs.push({ d, o, dist });
      }),
    );
    pairs.sort((a, b) => a.dist - b.dist || a.d - b.d || a.o - b.o);
    const detectionTaken = new Set<number>();
    const objectTaken = new Set<number>();
    const seen: TrackedObject[] = [];
    for (const p of pairs) {
      if (detectionTaken.has(p.d) || objectTaken.has(p.o)) continue;
      detectionTaken.add(p.d);
      objectTaken.add(p.o);
      const obj = this.objects[p.o];
      const det = detections[p.d];
      const dt = t - obj.lastSeen;
      if (dt > 0) {
        // the first displacement as it is, then an even blend with the estimate so far
        const k = obj.tracked ? this.opts.velocityGain : 1;
        obj.vx += k * ((det.x - obj.x) / dt - obj.vx);
        obj.vy += k * ((det.y - obj.y) / dt - obj.vy);
        obj.tracked = true;
      }
      Object.assign(obj, { x: det.x, y: det.y, extent: det.extent, lastSeen: t });
      if (Math.hypot(obj.vx, obj.vy) > this.opts.movingSpeed) obj.hasMoved = true;
      seen.push(obj);
    }
    for (let i = this.objects.length - 1; i >= 0; i--) {
      if (!objectTaken.has(i) && t - this.objects[i].lastSeen > this.opts.forgetAfter + 1e-9) this.objects.splice(i, 1);
    }
    detections.forEach((det, d) => {
      if (detectionTaken.has(d)) return;
      const id = this.freeId();
      if (id === undefined) return;
      const obj: TrackedObject = {
        id,
        x: det.x,
        y: det.y,
        vx: 0,
        vy: 0,
        extent: det.extent,
        firstSeen: t,
        lastSeen: t,
        hasMoved: false,
        tracked: false,
      };
      this.objects.push(obj);
      seen.push(obj);
    });
    return seen.sort((a, b) => a.id - b.id);
  }

  /** Whether an object with this ID is tracked. */
  has(id: number): boolean {
    return this.objects.some((o) => o.id === id);
  }

  /** The next unused ID, round robin; undefined when all 256 are in use. */
  private freeId(): number | undefined {
    const used = new Set(this.objects.map((o) => o.id));
    for (let k = 0; k < ID_COUNT; k++) {
      const id = (this.nextId + k) % ID_COUNT;
      if (!used.has(id)) {
        this.nextId = (id + 1) % ID_COUNT;
        return id;
      }
    }
    return undefined;
  }
}

/** A sensor-frame point on the map, for a sensor at `pose`. */
export function toMapFrame(pose: { x: number; y: number; yaw: number }, p: { x: number; y: number }): { x: number; y: number } {
  const c = Math.cos(pose.yaw);
  const s = Math.sin(pose.yaw);
  return { x: pose.x + c * p.x - s * p.y, y: pose.y + s * p.x + c * p.y };
}

/** A map-frame vector in the frame of a body at `yaw`. */
export function toBodyFrame(yaw: number, v: { x: number; y: number }): { x: number; y: number } {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return { x: c * v.x + s * v.y, y: -s * v.x + c * v.y };
}
