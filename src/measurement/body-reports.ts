import type { BodyGates } from '../scenario/resolved.js';
import { percentileOfSorted } from '../util/percentile.js';
import type { ReportedPose } from '../world/body-pose.js';
import { ClockOffsetEstimator, round3, type SyncSample } from './clock-offset.js';

/** `summary.json` → `timing.external.carN` of a physical car (role: body). */
export interface BodyFigures {
  role: 'body';
  /** Pose reports received from the start to the end of the run, and per second of it. */
  reports: number;
  reports_per_s: number;
  /** Arrival minus stamp, the stamp moved to the simulator's clock by the measured offset [ms]. */
  pose_lag_p50_ms: number | null;
  pose_lag_p99_ms: number | null;
  pose_lag_max_ms: number | null;
  /** The longest time without a report after the start (the end of the run counts) [ms]. */
  max_report_gap_ms: number | null;
  clock_samples: number;
  /** Device clock minus simulator clock: at the end, and the largest the run saw [ms]. */
  clock_offset_ms: number | null;
  clock_offset_max_abs_ms: number | null;
  /** What the gate judges: the largest |offset| less half its round trip, as far off as the clock certainly was [ms]. */
  clock_offset_certain_ms: number | null;
  clock_rtt_p50_ms: number | null;
  clock_rtt_max_ms: number | null;
  max_clock_offset_ms: number;
  max_pose_lag_ms: number;
  max_report_gap_limit_ms: number;
}

/**
 * What a physical car has reported: its newest pose (on the simulator's clock) and, from the start
 * of the run on, each report's lag and the gaps between reports; and its device's clock offset.
 */
export class BodyReports {
  readonly clock = new ClockOffsetEstimator();
  newest?: ReportedPose;
  private readonly lagsMs: number[] = [];
  private startNs?: bigint;
  private lastNs?: bigint;
  private maxGapNs = 0n;

  constructor(
    readonly car: string,
    readonly gates: BodyGates,
  ) {}

  sync(sample: SyncSample): void {
    this.clock.add(sample);
  }

  /** From `t0` on, reports count: their lag and the gaps between them. */
  start(t0Ns: bigint): void {
    this.startNs = t0Ns;
  }

  /** A pose report stamped `deviceStampNs` on the device's clock, received at `receivedNs` on the simulator's. */
  report(pose: Omit<ReportedPose, 'stampNs'>, deviceStampNs: bigint, receivedNs: bigint): void {
    const stampNs = deviceStampNs - BigInt(Math.round(this.clock.current?.offsetNs ?? 0));
    // Reports may overtake each other on the way; the newest by its stamp is where the car is.
    if (!this.newest || stampNs >= this.newest.stampNs) this.newest = { ...pose, stampNs };
    if (this.startNs === undefined || receivedNs < this.startNs) return;
    this.lagsMs.push(Number(receivedNs - stampNs) / 1e6);
    this.noteGap(receivedNs);
    this.lastNs = receivedNs;
  }

  /** How long the car has been silent at `nowNs` since its last report (or since the start). */
  silentFor(nowNs: bigint): bigint {
    const since = this.lastNs ?? this.startNs ?? nowNs;
    return nowNs > since ? nowNs - since : 0n;
  }

  private noteGap(nowNs: bigint): void {
    const gap = this.silentFor(nowNs);
    if (gap > this.maxGapNs) this.maxGapNs = gap;
  }

  figures(endNs: bigint): BodyFigures {
    if (this.startNs !== undefined) this.noteGap(endNs);
    const sorted = [...this.lagsMs].sort((a, b) => a - b);
    const ms = (x: number | undefined) => (x === undefined ? null : round3(x));
    const runS = this.startNs === undefined ? 0 : Number(endNs - this.startNs) / 1e9;
    const clock = this.clock.figures();
    return {
      role: 'body',
      reports: sorted.length,
      reports_per_s: runS > 0 ? round3(sorted.length / runS) : 0,
      pose_lag_p50_ms: ms(percentileOfSorted(sorted, 50)),
      pose_lag_p99_ms: ms(percentileOfSorted(sorted, 99)),
      pose_lag_max_ms: ms(sorted.at(-1)),
      max_report_gap_ms: this.startNs === undefined ? null : round3(Number(this.maxGapNs) / 1e6),
      clock_samples: clock.samples,
      clock_offset_ms: clock.offset_ms,
      clock_offset_max_abs_ms: clock.offset_max_abs_ms,
      clock_offset_certain_ms: clock.offset_certain_ms,
      clock_rtt_p50_ms: clock.rtt_p50_ms,
      clock_rtt_max_ms: clock.rtt_max_ms,
      max_clock_offset_ms: this.gates.maxClockOffset * 1000,
      max_pose_lag_ms: this.gates.maxPoseLag * 1000,
      max_report_gap_limit_ms: this.gates.maxReportGap * 1000,
    };
  }
}

/**
 * Why a physical car's run measured something other than the world it claims: its clock further
 * off than the gate (beyond what the round trip leaves uncertain, so a busy link alone does not count) (its own stamps, and the V2V times it reports, are then not this run's), or its
 * poses arriving too late at p99 (other cars reacted to where it was, not where it is).
 */
export function bodyInvalidReasons(car: string, f: BodyFigures): string[] {
  const reasons: string[] = [];
  if (f.clock_offset_certain_ms === null)
    reasons.push(`${car}'s device answered no clock-sync probe: its clock offset and pose-report lag are unknown`);
  else if (f.clock_offset_certain_ms > f.max_clock_offset_ms) {
    reasons.push(
      `${car}'s device clock was at least ${f.clock_offset_certain_ms} ms off the simulator's (external.maxClockOffset ${f.max_clock_offset_ms} ms): synchronise it (NTP, PTP) or raise the gate`,
    );
  }
  if (f.pose_lag_p99_ms !== null && f.pose_lag_p99_ms > f.max_pose_lag_ms) {
    reasons.push(
      `${car}'s pose reports lagged ${f.pose_lag_p99_ms} ms at p99 (external.maxPoseLag ${f.max_pose_lag_ms} ms; max ${f.pose_lag_max_ms} ms)`,
    );
  }
  return reasons;
}
