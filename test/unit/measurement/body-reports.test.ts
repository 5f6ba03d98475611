import { describe, expect, it } from 'vitest';
import { BodyReports, bodyInvalidReasons } from '../../../src/measurement/body-reports.js';

const gates = { maxClockOffset: 0.02, maxPoseLag: 0.05, maxReportGap: 0.25 };
const ms = (x: number) => BigInt(Math.round(x * 1e6));
const T0 = ms(1_000_000);
const pose = (x: number) => ({ x, y: 0, yaw: 0, v: 1, yawRate: 0, steer: 0 });

/** A device `offset` ms ahead that reports every 20 ms for `seconds`, each report `lag` ms old when it arrives. */
function device(offset: number, lag: number, seconds = 1): BodyReports {
  const b = new BodyReports('car0', gates);
  b.sync({ t1: T0 - ms(100), t2: T0 - ms(99.5) + ms(offset), t3: T0 - ms(99.4) + ms(offset), t4: T0 - ms(98.9) });
  b.start(T0);
  for (let t = 0; t <= seconds * 1000; t += 20) b.report(pose(t / 1000), T0 + ms(t - lag + offset), T0 + ms(t));
  return b;
}

describe("a physical car's pose reports and their gates", () => {
  it("measures lag on the simulator's clock, whatever the device's clock says", () => {
    const f = device(200, 3).figures(T0 + ms(1000));
    expect(f.pose_lag_p50_ms).toBeCloseTo(3, 3);
    expect(f.pose_lag_p99_ms).toBeCloseTo(3, 3);
    expect(f.clock_offset_ms).toBeCloseTo(200, 3);
    expect(f).toMatchObject({
      role: 'body',
      reports: 51,
      reports_per_s: 51,
      max_report_gap_ms: 20,
      clock_samples: 1,
      max_clock_offset_ms: 20,
      max_pose_lag_ms: 50,
      max_report_gap_limit_ms: 250,
    });
  });

  it("keeps the newest pose by its stamp, moved to the simulator's clock", () => {
    const b = device(200, 3);
    expect(b.newest).toMatchObject({ x: 1, stampNs: T0 + ms(1000 - 3) });
    b.report(pose(0.5), T0 + ms(500 + 200), T0 + ms(1001));
    expect(b.newest!.x).toBe(1);
  });

  it('passes a device within the gates', () => {
    expect(bodyInvalidReasons('car0', device(1, 3).figures(T0 + ms(1000)))).toEqual([]);
  });

  it('names the car and the gate for a clock too far off, and for reports too late at p99', () => {
    expect(bodyInvalidReasons('car0', device(200, 3).figures(T0 + ms(1000)))).toEqual([
      "car0's device clock was at least 199.5 ms off the simulator's (external.maxClockOffset 20 ms): synchronise it (NTP, PTP) or raise the gate",
    ]);
    expect(bodyInvalidReasons('car0', device(0, 200).figures(T0 + ms(1000)))).toEqual([
      "car0's pose reports lagged 200 ms at p99 (external.maxPoseLag 50 ms; max 200 ms)",
    ]);
  });

  it('says so when the device never answered a clock probe', () => {
    const b = new BodyReports('car3', gates);
    b.start(T0);
    expect(bodyInvalidReasons('car3', b.figures(T0 + ms(10)))).toEqual([
      "car3's device answered no clock-sync probe: its clock offset and pose-report lag are unknown",
    ]);
  });

  it('counts silence from the start, and to the end of the run', () => {
    const b = device(0, 1, 0.5);
    expect(b.silentFor(T0 + ms(800))).toBe(ms(300));
    expect(b.figures(T0 + ms(800)).max_report_gap_ms).toBe(300);
    const quiet = new BodyReports('car0', gates);
    quiet.start(T0);
    expect(quiet.silentFor(T0 + ms(260))).toBe(ms(260));
  });
});
